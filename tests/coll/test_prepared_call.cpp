// CollectiveRunner's two-step form (prepare once, start many times) and RunnerComm's cache of
// prepared calls: the same times and links as the one-step form, one preparation per distinct call.
#include <catch2/catch.hpp>

#include "coll_fixtures.hpp"
#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/plan/runner_comm.hpp"

using namespace plansim;

namespace {
// Ring all-reduce of S bytes over n ideal links (bandwidth B, latency a): 2(n-1)a + 2(n-1)/n S/B.
double ring_allreduce_seconds(int n, double S, double B, double a) { return 2 * (n - 1) * a + 2.0 * (n - 1) / n * S / B; }
}  // namespace

TEST_CASE("prepared call: equal calls share one preparation and run as the one-step form", "[coll]") {
  const int n = 4;
  const double S = 1e9, B = 50e9, a = 500e-9;
  const Topology topo = test::ring_topology(n, GBps(50), Time::ns(500));
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, NcclModelParams::ideal());
  const CollectiveCall call{CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, "ring"};
  const PreparedCall p = runner.prepare(call);
  CHECK(runner.prepare(call).index == p.index);
  CollectiveCall other = call;
  other.bytes = Bytes(2 * S);
  CHECK(runner.prepare(other).index != p.index);
  CHECK(runner.algorithm(p) == "ring");

  // Three back to back, each started from the previous one's completion (the pool hands out runs
  // while one is finishing), then the one-step form once more.
  std::vector<double> ends;
  std::function<void()> next = [&] {
    ends.push_back(sim.now().seconds());
    if (ends.size() < 3) runner.start(p, next);
  };
  runner.start(p, next);
  sim.run();
  REQUIRE(ends.size() == 3);
  const double one = ring_allreduce_seconds(n, S, B, a);
  for (int k = 0; k < 3; ++k) CHECK(ends[static_cast<size_t>(k)] == Approx((k + 1) * one).epsilon(1e-9));
  CollectiveResult r;
  runner.start(call, [&](const CollectiveResult& res) { r = res; });
  sim.run();
  CHECK((r.end - r.start).seconds() == Approx(one).epsilon(1e-9));
  CHECK(r.algorithm == "ring");

  // Two at once share every link: each takes twice as long on the bandwidth term.
  const double t0 = sim.now().seconds();
  int done = 0;
  runner.start(p, [&] { ++done; });
  runner.start(p, [&] { ++done; });
  sim.run();
  CHECK(done == 2);
  CHECK(sim.now().seconds() - t0 == Approx(2 * (n - 1) * a + 2 * 2.0 * (n - 1) / n * S / B).epsilon(1e-9));
}

TEST_CASE("runner comm: one preparation per (group, replica, op, bytes) and per send/recv pair", "[coll]") {
  const Topology topo = test::ring_topology(4, GBps(50), Time::ns(500));
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, NcclModelParams::ideal());
  RunnerComm comm(runner);
  const std::vector<GpuId> g01{GpuId(0), GpuId(1)}, g23{GpuId(2), GpuId(3)};
  auto request = [](CommOp op, const std::vector<GpuId>& ranks, double bytes, uint32_t group, uint32_t replica) {
    CommRequest r;
    r.op = op;
    r.ranks = ranks;
    r.bytes = Bytes(bytes);
    r.dim = Dim::dp;
    r.group = group;
    r.replica = replica;
    return r;
  };
  int done = 0;
  auto count = [&] { ++done; };
  // Group 0, replica 0 on GPUs 0-1; its replica 1 (the TP siblings' copy) on GPUs 2-3.
  comm.start(request(CommOp::all_reduce, g01, 1e6, 0, 0), count);
  comm.start(request(CommOp::all_reduce, g01, 1e6, 0, 0), count);
  CHECK(comm.prepared() == 1);
  sim.run();
  const LinkId l23 = topo.route(GpuId(2), GpuId(3)).front();
  CHECK(net.link_stats(l23).bytes.value() == 0.0);
  comm.start(request(CommOp::all_reduce, g23, 1e6, 0, 1), count);
  CHECK(comm.prepared() == 2);
  sim.run();
  CHECK(net.link_stats(l23).bytes.value() > 0.0);  // replica 1 ran on its own ranks, not replica 0's
  comm.start(request(CommOp::all_reduce, g01, 2e6, 0, 0), count);   // another size
  comm.start(request(CommOp::all_gather, g01, 1e6, 0, 0), count);   // another op
  CHECK(comm.prepared() == 4);
  // send/recv by (sender, receiver, bytes): 0 -> 1 twice, then 1 -> 0, which must use the other direction.
  comm.start(request(CommOp::send_recv, g01, 1e6, kNoGroup, 0), count);
  comm.start(request(CommOp::send_recv, g01, 1e6, kNoGroup, 0), count);
  CHECK(comm.prepared() == 5);
  sim.run();
  const LinkId l10 = topo.route(GpuId(1), GpuId(0)).front();
  const double before = net.link_stats(l10).bytes.value();
  const std::vector<GpuId> g10{GpuId(1), GpuId(0)};
  comm.start(request(CommOp::send_recv, g10, 1e6, kNoGroup, 0), count);
  CHECK(comm.prepared() == 6);
  sim.run();
  CHECK(net.link_stats(l10).bytes.value() == Approx(before + 1e6));
  CHECK(done == 8);
}
