// CollNet Direct (algo_collnet_direct.cpp): where NCCL runs it (a fabric that reduces: SHARP), the data it
// moves (every rank ends with the sum; per link what the expansion says), its closed-form time (a server's
// NIC moves S each way whatever the server count: the switches reduce) and its latency (tuning.cc).
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/reference_executor.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
const CollectiveAlgorithm& collnet() {
  static const AlgorithmRegistry reg = make_default_registry();
  return *reg.find("collnet_direct");
}
Topology sharp_cluster(int hosts, int per_host) { return test::cluster_topology(hosts, per_host, false, GBps(450), GBps(50), true); }
FlowPlan lower(const Topology& topo, int n, double S) {
  return collnet().lower(LoweringContext{&topo, CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, 1});
}
double seconds(const Topology& topo, int n, double S, const NcclModelParams& m) {
  return predict_time(m, LatencyClass::collnet, Protocol::simple, lower(topo, n, S), topo, HwKind::nvlink).seconds();
}
}  // namespace

TEST_CASE("collnet_direct: only an all-reduce across 2+ servers whose fabric reduces (sharp)", "[coll]") {
  const auto& a = collnet();
  CHECK(a.applicable(CollOp::all_reduce, sharp_cluster(2, 4), test::first_gpus(8)));
  CHECK(a.applicable(CollOp::all_reduce, sharp_cluster(3, 1), test::first_gpus(3)));
  CHECK_FALSE(a.applicable(CollOp::all_reduce, sharp_cluster(2, 4), test::first_gpus(4)));             // one server
  CHECK_FALSE(a.applicable(CollOp::all_reduce, test::cluster_topology(2, 4), test::first_gpus(8)));   // no SHARP
  CHECK_FALSE(a.applicable(CollOp::all_gather, sharp_cluster(2, 4), test::first_gpus(8)));
  CHECK_FALSE(a.applicable(CollOp::all_reduce, sharp_cluster(2, 4), test::first_gpus(6)));             // 4 + 2
  CHECK(a.requirement().find("sharp: true") != std::string_view::npos);
}

TEST_CASE("collnet_direct: every rank ends with the sum (reference executor)", "[coll]") {
  for (int hosts : {2, 3, 5})
    for (int per_host : {1, 2, 4, 8}) {
      GroupShape g{hosts * per_host, 0, {}};
      for (int r = 0; r < g.n; ++r) g.host_of_rank.push_back(r / per_host);
      INFO(hosts << " x " << per_host);
      const ExecutionCheck res = run_reference(CollOp::all_reduce, collnet().expand(CollOp::all_reduce, g), 0);
      INFO(res.error);
      CHECK(res.ok);
    }
}

TEST_CASE("collnet_direct: per-link bytes of the plan equal the expansion's (the leaf is the aggregation point)", "[coll]") {
  for (auto [hosts, per_host] : {std::pair{2, 4}, std::pair{3, 2}, std::pair{4, 1}}) {
    const Topology topo = sharp_cluster(hosts, per_host);
    const int n = hosts * per_host;
    const auto ranks = test::first_gpus(n);
    const double S = 12e6;
    const ChunkSchedule s = collnet().expand(CollOp::all_reduce, LoweringContext{&topo, CollOp::all_reduce, ranks, Bytes(S), 0, 1}.shape());
    NodeId leaf;
    for (const Node& nd : topo.nodes())
      if (nd.kind == NodeKind::leaf_switch) leaf = nd.id;
    std::vector<double> want(topo.links().size(), 0.0);
    const double chunk = s.chunk_bytes(S);
    for (const ChunkStep& st : s.steps)
      for (const ChunkXfer& x : st.xfers) {
        std::vector<LinkId> route;
        if (x.src < s.num_ranks && x.dst < s.num_ranks) {
          append_route(topo, ranks[static_cast<size_t>(x.src)], ranks[static_cast<size_t>(x.dst)], route);
        } else if (x.src < s.num_ranks) {  // up to the reducing switch
          const auto r = topo.route(topo.gpu_node(ranks[static_cast<size_t>(x.src)]), leaf);
          route.assign(r.begin(), r.end());
        } else {  // down from it
          const auto r = topo.route(leaf, topo.gpu_node(ranks[static_cast<size_t>(x.dst)]));
          route.assign(r.begin(), r.end());
        }
        for (LinkId l : route) want[l.index()] += chunk;
      }
    const auto got = lower(topo, n, S).link_bytes(topo.links().size());
    INFO(hosts << " x " << per_host);
    for (size_t l = 0; l < got.size(); ++l) {
      INFO("link " << l);
      CHECK(got[l] == Approx(want[l]).margin(1e-3));
    }
  }
}

TEST_CASE("collnet_direct closed form: a server's NIC moves S each way, whatever the server count", "[coll]") {
  // Ideal model, one 50 GB/s NIC per server shared by its 4 GPUs: t = S / 50 GB/s on 2 and on 4 servers
  // (a ring all-reduce moves 2 (n-1)/n S through it: 1.75 S on 8 GPUs, 1.875 S on 16).
  // The first bytes pay the route: a scatter hop (GPU-NVSwitch-GPU, 0.4 us), GPU to GPU through the leaf
  // (1.6 us), a gather hop: 2.4 us.
  const NcclModelParams m = NcclModelParams::ideal();
  const double S = 1e9, route = 2.4e-6;
  for (int hosts : {2, 4}) {
    INFO(hosts << " servers");
    CHECK(plan_route_latency(lower(sharp_cluster(hosts, 4), 4 * hosts, S)).seconds() == Approx(route));
    CHECK(seconds(sharp_cluster(hosts, 4), 4 * hosts, S, m) == Approx(route + S / 50e9).epsilon(1e-9));
  }
  // NCCL's CollNet bandwidth factor (x 0.85 from compute capability 9.0) scales every CollNet flow.
  NcclModelParams hopper = m;
  hopper.collnet_efficiency = 0.85;
  CHECK(seconds(sharp_cluster(2, 4), 8, S, hopper) == Approx(route + S / (0.85 * 50e9)).epsilon(1e-9));
  CHECK(NcclModelParams{}.collnet_efficiency == 0.85);
}

TEST_CASE("collnet_direct latency: tuning.cc's 2 (min(1, ppn-1) intraLat + (ppn-1) 0.4) + interLat", "[coll]") {
  NcclModelParams m;
  m.device_latency_us = 0;
  const auto c = LatencyClass::collnet;
  CHECK_FALSE(m.protocol_enabled(c, Protocol::ll));
  CHECK_FALSE(m.protocol_enabled(c, Protocol::ll128));
  // 2 servers x 8: 2 x (3.7 + 7 x 0.4) + 31 = 44 us (NVLink and network CollNetDirect rows, tuning.cc 2.19-2.27),
  // less the route latency the phase charges (nccl_model.hpp: a hop is paid once).
  const FlowPlan eight = lower(sharp_cluster(2, 8), 16, 1e6);
  CHECK(software_latency(m, c, Protocol::simple, eight, HwKind::nvlink).micros() ==
        Approx(2 * (3.7 + 7 * 0.4) + 31.0 - plan_route_latency(eight).micros()));
  // One GPU per server: no intra step, and the tree's network latency (Simple 14 us: "latencies fully exposed").
  const FlowPlan one = lower(sharp_cluster(3, 1), 3, 1e6);
  CHECK(software_latency(m, c, Protocol::simple, one, HwKind::nvlink).micros() ==
        Approx(14.0 - plan_route_latency(one).micros()));
}
