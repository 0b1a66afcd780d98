// NVLS-Tree (algo_nvls_tree.cpp): where NCCL runs it, the data it moves (NVLS inside each server, S / 2L
// per head and tree edge across servers), its latency (tuning.cc: intraLat + 2 log2i(nNodes) interLat)
// and its chunking (enqueue.cc calcCollChunking NVLS_TREE), each in closed form.
#include <catch2/catch.hpp>

#include <map>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/nvls_pipeline.hpp"
#include "sim/coll/reference_executor.hpp"
#include "sim/coll/selection.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
const CollectiveAlgorithm& nvls_tree() {
  static const AlgorithmRegistry reg = make_default_registry();
  return *reg.find("nvls_tree");
}
FlowPlan lower(const Topology& topo, int n, double S) {
  return nvls_tree().lower(LoweringContext{&topo, CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, 1});
}
}  // namespace

TEST_CASE("nvls_tree: only across servers whose GPUs (3 or more each) share an NVLS switch", "[coll][nvls]") {
  const auto& a = nvls_tree();
  CHECK(a.applicable(CollOp::all_reduce, test::cluster_topology(2, 4, true), test::first_gpus(8)));
  CHECK_FALSE(a.applicable(CollOp::all_reduce, test::cluster_topology(2, 4, true), test::first_gpus(4)));  // one server
  CHECK_FALSE(a.applicable(CollOp::all_reduce, test::cluster_topology(2, 4, false), test::first_gpus(8)));  // no NVLS
  CHECK_FALSE(a.applicable(CollOp::all_reduce, test::cluster_topology(2, 2, true), test::first_gpus(4)));  // 2 per server
  CHECK_FALSE(a.applicable(CollOp::all_gather, test::cluster_topology(2, 4, true), test::first_gpus(8)));
}

TEST_CASE("nvls_tree: every rank ends with the sum (reference executor), 2 to 4 servers", "[coll][nvls]") {
  for (int hosts : {2, 3, 4})
    for (int per_host : {3, 4, 8}) {
      GroupShape g{hosts * per_host, 0, {}};
      for (int r = 0; r < g.n; ++r) g.host_of_rank.push_back(r / per_host);
      INFO(hosts << " x " << per_host);
      const ExecutionCheck res = run_reference(CollOp::all_reduce, nvls_tree().expand(CollOp::all_reduce, g), 0);
      INFO(res.error);
      CHECK(res.ok);
    }
}

TEST_CASE("nvls_tree: NVLink S + S/L per GPU, network S / 2L per head and tree edge each way", "[coll][nvls]") {
  const double S = 1 << 30;
  for (int hosts : {2, 4}) {
    const Topology topo = test::cluster_topology(hosts, 4, true);
    const FlowPlan plan = lower(topo, 4 * hosts, S);
    REQUIRE(plan.phases.size() == 1);
    double nvls = 0, net = 0;
    int net_flows = 0;
    for (const auto& f : plan.phases.front().flows) {
      if (f.in_switch) {
        nvls += f.bytes.value();
      } else {
        net += f.bytes.value();
        ++net_flows;
        CHECK(f.bytes.value() == Approx(S / 8));  // S / 2L, L = 4
      }
    }
    CHECK(nvls == Approx(4 * hosts * S * 1.25));      // every GPU S + S/4
    CHECK(net_flows == 2 * (hosts - 1) * 4);          // 2 trees x (H - 1) edges x L heads
    CHECK(net == Approx(2 * (hosts - 1) * S / 2));    // each tree edge carries S / 2 of the call, each way
    // Per server and direction: S on 2 servers; at most 2 S on more (a server inner in one tree).
    std::map<int, double> out;
    for (const auto& f : plan.phases.front().flows)
      if (!f.in_switch) {  // its two heads (the GPUs its links leave from) each send S / 2L
        std::map<int, bool> ends;
        for (LinkId l : f.links)
          if (topo.node(topo.link(l).src).kind == NodeKind::gpu) ends[topo.node(topo.link(l).src).host] = true;
        CHECK(ends.size() == 2);
        for (const auto& [h, _] : ends) out[h] += f.bytes.value();
      }
    for (const auto& [h, b] : out) CHECK(b <= 2 * S + 1);
    if (hosts == 2)
      for (const auto& [h, b] : out) CHECK(b == Approx(S));
  }
}

TEST_CASE("nvls_tree: latency is NVLSTree's intraLat + 2 log2i(nNodes) interLat (Simple only)", "[coll][nvls]") {
  NcclModelParams m;
  m.device_latency_us = 0;
  const auto c = LatencyClass::nvls_tree;
  CHECK_FALSE(m.protocol_enabled(c, Protocol::ll));
  CHECK_FALSE(m.protocol_enabled(c, Protocol::ll128));
  // Less the route latency the phases charge (the steps' latency stands for it: nccl_model.hpp).
  const FlowPlan two = lower(test::cluster_topology(2, 4, true), 8, 1e6);
  const FlowPlan four = lower(test::cluster_topology(4, 4, true), 16, 1e6);
  const double route2 = plan_route_latency(two).micros(), route4 = plan_route_latency(four).micros();
  REQUIRE(route2 > 0);
  REQUIRE(route4 > 0);
  CHECK(software_latency(m, c, Protocol::simple, two, HwKind::nvlink).micros() == Approx(23.0 + 2 * 1 * 14.0 - route2));
  CHECK(software_latency(m, c, Protocol::simple, four, HwKind::nvlink).micros() == Approx(23.0 + 2 * 2 * 14.0 - route4));
  m.net_latency_us = 5.0;  // latencyInter, twice with Simple (the flush)
  CHECK(software_latency(m, c, Protocol::simple, two, HwKind::nvlink).micros() == Approx(23.0 + 2 * (14.0 + 10.0) - route2));
}

TEST_CASE("nvls_tree: the bandwidth term is the server's network rate for S, ring's for 2(n-1)/n S", "[coll][nvls]") {
  // Ideal model, one 50 GB/s NIC per server: NVLS-Tree moves S per server and direction, a ring 2(n-1)/n S.
  const Topology topo = test::cluster_topology(2, 4, true);
  const NcclModelParams m = NcclModelParams::ideal();
  const double S = 1 << 30;
  const FlowPlan plan = lower(topo, 8, S);
  const double t = predict_time(m, LatencyClass::nvls_tree, Protocol::simple, plan, topo, HwKind::nvlink).seconds();
  CHECK(t == Approx(S / 50e9).epsilon(1e-3));
  const auto reg = make_default_registry();
  const CollectiveChoice ring =
      choose_collective(reg, m, topo, CollectiveCall{CollOp::all_reduce, test::first_gpus(8), Bytes(S), 0, "ring", "Simple"});
  CHECK(ring.predicted.seconds() == Approx(2.0 * 7 / 8 * S / 50e9).epsilon(1e-3));
  const CollectiveChoice best =
      choose_collective(reg, m, topo, CollectiveCall{CollOp::all_reduce, test::first_gpus(8), Bytes(S), 0, "auto", "auto"});
  CHECK(best.algorithm->name() == "nvls_tree");
}

TEST_CASE("nvls_tree: chunk and fill follow calcCollChunking's NVLS_TREE branch", "[coll][nvls]") {
  NcclModelParams m;  // 16 NVLS channels, 128 KiB chunk
  const int heads = 8;  // concurrentOps = 128
  const double MiB = 1048576;
  CHECK(nvls_tree_chunk_bytes(m, Bytes(1024 * MiB), heads, 2).value() == 131072);
  CHECK(nvls_tree_chunk_bytes(m, Bytes(64 * MiB), heads, 2).value() == 131072);  // not < 4 x 128 x 128 KiB
  CHECK(nvls_tree_chunk_bytes(m, Bytes(32 * MiB), heads, 2).value() == 65536);
  CHECK(nvls_tree_chunk_bytes(m, Bytes(8 * MiB), heads, 2).value() == 65536);    // not < 1 x 128 x 64 KiB
  CHECK(nvls_tree_chunk_bytes(m, Bytes(4 * MiB), heads, 2).value() == 32768);
  CHECK(nvls_tree_chunk_bytes(m, Bytes(1024 * MiB), heads, 4).value() == 65536);  // 4+ servers: at most 64 KiB
  // Fill: (3 + 2 levels - 1) loops of 16 x 8 x chunk, each at most the call.
  CHECK(nvls_tree_fill_bytes(m, Bytes(1024 * MiB), heads, 2, 1).value() == Approx(4 * 16 * MiB));
  CHECK(nvls_tree_fill_bytes(m, Bytes(2 * MiB), heads, 2, 1).value() == Approx(4 * 2 * MiB));
  CHECK(nvls_tree_fill_bytes(m, Bytes(1024 * MiB), heads, 4, 2).value() == Approx(6 * 8 * MiB));
}
