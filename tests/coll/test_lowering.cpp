// The timing lowering moves exactly the bytes the data-movement expansion implies, link by link, and
// the flow network credits those bytes when the plan runs.
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/net/flow_network.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
const CollOp kOps[] = {CollOp::all_reduce, CollOp::all_gather, CollOp::reduce_scatter, CollOp::broadcast,
                       CollOp::reduce,     CollOp::gather,     CollOp::scatter,        CollOp::all_to_all,
                       CollOp::send_recv};
}

TEST_CASE("lowering: per-link bytes of the flow plan equal the expansion's", "[coll]") {
  const AlgorithmRegistry reg = make_default_registry();
  for (auto [hosts, per_host] : {std::pair{1, 5}, std::pair{2, 4}, std::pair{3, 2}, std::pair{1, 8}}) {
    const Topology topo = test::cluster_topology(hosts, per_host, true);
    const int n = hosts * per_host;
    for (const auto& algo : reg.all())
      for (CollOp op : kOps) {
        const int g = op == CollOp::send_recv ? 2 : n;
        const auto ranks = test::first_gpus(g);
        if (!algo->applicable(op, topo, ranks)) continue;
        const Bytes S = MB(12.0);
        LoweringContext ctx{&topo, op, ranks, S, g - 1, 3};
        if (op != CollOp::broadcast && op != CollOp::reduce && op != CollOp::gather && op != CollOp::scatter) ctx.root = 0;
        INFO(algo->name() << " " << to_string(op) << " hosts=" << hosts << " per_host=" << per_host);
        const FlowPlan plan = algo->lower(ctx);
        const ChunkSchedule s = algo->expand(op, ctx.shape());
        std::vector<double> want;
        if (s.num_participants == s.num_ranks) {
          want = schedule_link_bytes(s, topo, ranks, S);
        } else {  // NVLS: a GPU's link to the switch carries its chunks to and from the switch participants
          want.assign(topo.links().size(), 0.0);
          const double chunk = s.chunk_bytes(S.value());
          for (const ChunkStep& st : s.steps)
            for (const ChunkXfer& x : st.xfers) {
              if (x.src < s.num_ranks && x.dst < s.num_ranks) {  // rank to rank (NVLS-Tree across servers)
                std::vector<LinkId> route;
                append_route(topo, ranks[static_cast<size_t>(x.src)], ranks[static_cast<size_t>(x.dst)], route);
                for (LinkId l : route) want[l.index()] += chunk;
                continue;
              }
              const bool up = x.src < s.num_ranks;
              const GpuId r = ranks[static_cast<size_t>(up ? x.src : x.dst)];
              for (LinkId l : topo.out_links(topo.gpu_node(r)))
                want[l.index() + (up ? 0 : 1)] += chunk;  // add_duplex: reverse = forward + 1
            }
        }
        const auto got = plan.link_bytes(topo.links().size());
        for (size_t l = 0; l < got.size(); ++l) {
          INFO("link " << l);
          CHECK(got[l] == Approx(want[l]).margin(1e-3));
        }
      }
  }
}

TEST_CASE("lowering: the flow network carries the plan's bytes (ring all-reduce 10 GB on 8 GPUs: 17.5 GB per GPU)",
          "[coll][seed]") {
  const Topology topo = test::cluster_topology(1, 8);
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, NcclModelParams::ideal());
  CollectiveCall call{CollOp::all_reduce, test::first_gpus(8), GB(10), 0, "ring"};
  bool done = false;
  runner.start(call, [&](const CollectiveResult& r) {
    done = true;
    CHECK(r.algorithm == "ring");
  });
  sim.run();
  REQUIRE(done);
  for (int g = 0; g < 8; ++g) {
    const LinkId up = topo.out_links(topo.gpu_node(GpuId::from(g))).front();
    CHECK(net.link_stats(up).bytes.value() == Approx(17.5e9));
  }
}

TEST_CASE("lowering: every algorithm's run credits exactly the plan's bytes to each link (ideal model)", "[coll]") {
  const AlgorithmRegistry reg = make_default_registry();
  const Topology topo = test::cluster_topology(2, 4, true);
  const NcclModelParams m = NcclModelParams::ideal();
  for (const auto& algo : reg.all())
    for (CollOp op : kOps) {
      const int g = op == CollOp::send_recv ? 2 : 4;  // nvls needs one switch: the first server's 4 GPUs
      const auto ranks = test::first_gpus(g);
      if (!algo->applicable(op, topo, ranks)) continue;
      INFO(algo->name() << " " << to_string(op));
      Simulation sim;
      FlowNetwork net(sim, topo);
      CollectiveRunner runner(net, m);
      bool done = false;
      runner.start({op, ranks, MB(8), 1, std::string(algo->name())}, [&](const CollectiveResult&) { done = true; });
      sim.run();
      REQUIRE(done);
      LoweringContext ctx{&topo, op, ranks, MB(8), 1, m.channels};
      const auto want = algo->lower(ctx).link_bytes(topo.links().size());
      for (size_t l = 0; l < want.size(); ++l) CHECK(net.link_stats(LinkId::from(l)).bytes.value() == Approx(want[l]).margin(1));
    }
}

TEST_CASE("lowering: a tree's first bytes pay the route latencies along its longest root path", "[coll]") {
  // cluster_topology: a GPU pair on one server routes GPU-NVSwitch-GPU (2 x 0.2 us); across servers
  // GPU-NVSwitch-NIC-leaf-NIC-NVSwitch-GPU (0.2 + 0.1 + 0.5 + 0.5 + 0.1 + 0.2 = 1.6 us).
  const Topology topo = test::cluster_topology(2, 4, false);
  const int n = 8;
  auto edge_us = [](int a, int b) { return a / 4 == b / 4 ? 0.4 : 1.6; };
  const AlgorithmRegistry reg = make_default_registry();
  const FlowPlan plan =
      reg.find("tree")->lower(LoweringContext{&topo, CollOp::all_reduce, test::first_gpus(n), MB(1.0), 0, 1});
  REQUIRE(plan.phases.size() == 1);
  const auto sets = nccl_tree_parents(CollOp::all_reduce, LoweringContext{&topo, CollOp::all_reduce, test::first_gpus(n), MB(1.0), 0, 1}.shape());
  REQUIRE(sets.size() == 8);  // 2 trees x 4 chain orders
  REQUIRE(plan.phases.front().flows.size() == sets.size());
  for (size_t t = 0; t < sets.size(); ++t) {
    const std::vector<int>& par = sets[t];
    double deepest = 0, slowest = 0;
    int depth = 0;
    for (int r = 0; r < n; ++r) {
      double path = 0;
      int d = 0;
      for (int v = r; par[static_cast<size_t>(v)] >= 0; v = par[static_cast<size_t>(v)], ++d) {
        path += edge_us(v, par[static_cast<size_t>(v)]);
        slowest = std::max(slowest, edge_us(v, par[static_cast<size_t>(v)]));
      }
      deepest = std::max(deepest, path);
      depth = std::max(depth, d);
    }
    INFO("tree " << t);
    // Up to the root and down again (3 chain hops + 1 network hop each way); not depth x the slowest
    // edge (the network's) each way.
    CHECK(plan.phases.front().flows[t].latency.micros() == Approx(2 * deepest));
    CHECK(deepest == Approx(3 * 0.4 + 1.6));
    CHECK(2 * deepest < 2 * depth * slowest);
  }
}

TEST_CASE("lowering: a tree all-reduce across servers is NCCL's: a tree over the servers, a chain inside each", "[coll]") {
  // 4 servers x 4 GPUs. For each of the 2 trees over the servers and each chain order k, the chain of
  // server h is its local ranks k, k+1, ... (mod 4), the head (local k) hanging from the parent server's
  // head of the same local index, so the 8 channels leave each server through 4 different GPUs.
  const Topology topo = test::cluster_topology(4, 4, false);
  const LoweringContext ctx{&topo, CollOp::all_reduce, test::first_gpus(16), MB(16.0), 0, 1};
  const auto sets = nccl_tree_parents(CollOp::all_reduce, ctx.shape());
  REQUIRE(sets.size() == 8);
  std::vector<int> network_edges_from(16, 0);
  for (size_t s = 0; s < sets.size(); ++s) {
    const int t = static_cast<int>(s) / 4, k = static_cast<int>(s) % 4;
    const std::vector<int> server_parent = nccl_dtree_parents(4, t);
    for (int r = 0; r < 16; ++r) {
      const int h = r / 4, i = ((r % 4) - k + 4) % 4;  // position in its server's chain
      const int p = sets[s][static_cast<size_t>(r)];
      INFO("set " << s << " rank " << r);
      if (i > 0) {
        CHECK(p == h * 4 + (k + i - 1) % 4);
      } else if (server_parent[static_cast<size_t>(h)] < 0) {
        CHECK(p == -1);
      } else {
        CHECK(p == server_parent[static_cast<size_t>(h)] * 4 + k);
        ++network_edges_from[static_cast<size_t>(r)];
      }
    }
  }
  // Every GPU heads some channels: no NIC carries all the network traffic (a flat tree over the 16
  // ranks sent it all through ranks 0, 4, 8 and 12 ... of its few cross-server edges).
  for (int r = 0; r < 16; ++r) CHECK(network_edges_from[static_cast<size_t>(r)] >= 1);
  // Each set carries S / 8, up and down every edge: 2 x 15 edges' routes per flow.
  const FlowPlan plan = make_default_registry().find("tree")->lower(ctx);
  for (const auto& f : plan.phases.front().flows) CHECK(f.bytes.value() == Approx(MB(16.0).value() / 8));
  CHECK(plan.phases.front().flows.front().pipeline_steps == 2 * (3 + 2));  // chain of 4, 2 server levels
}
