// NVLS + CollNet (algo_nvls_collnet.cpp): NCCL's multi-node NVLS over a fabric that reduces (SHARP): where
// it runs, the data it moves (every rank ends with the sum; per link what the expansion says), its
// closed-form time (NVLink S + S/L per GPU; a server's NICs S each way whatever the server count) and
// its latency (tuning.cc: intraLat + interLat of the NVLS row).
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/reference_executor.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
const CollectiveAlgorithm& nvls_collnet() {
  static const AlgorithmRegistry reg = make_default_registry();
  return *reg.find("nvls_collnet");
}
Topology sharp_nvls_cluster(int hosts, int per_host, Rate nic = GBps(50)) {
  return test::cluster_topology(hosts, per_host, true, GBps(450), nic, true);
}
FlowPlan lower(const Topology& topo, int n, double S) {
  return nvls_collnet().lower(LoweringContext{&topo, CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, 1});
}
double seconds(const Topology& topo, int n, double S, const NcclModelParams& m) {
  return predict_time(m, LatencyClass::nvls, Protocol::simple, lower(topo, n, S), topo, HwKind::nvlink).seconds();
}
}  // namespace

TEST_CASE("nvls_collnet: only across NVLS servers (3+ GPUs each) on a fabric that reduces", "[coll][nvls]") {
  const auto& a = nvls_collnet();
  CHECK(a.applicable(CollOp::all_reduce, sharp_nvls_cluster(2, 4), test::first_gpus(8)));
  CHECK_FALSE(a.applicable(CollOp::all_reduce, sharp_nvls_cluster(2, 4), test::first_gpus(4)));  // one server
  CHECK_FALSE(a.applicable(CollOp::all_reduce, sharp_nvls_cluster(2, 2), test::first_gpus(4)));  // 2 per server
  CHECK_FALSE(a.applicable(CollOp::all_reduce, test::cluster_topology(2, 4, true), test::first_gpus(8)));  // no SHARP
  CHECK_FALSE(a.applicable(CollOp::all_reduce, test::cluster_topology(2, 4, false, GBps(450), GBps(50), true),
                           test::first_gpus(8)));  // no NVLS
  CHECK_FALSE(a.applicable(CollOp::all_gather, sharp_nvls_cluster(2, 4), test::first_gpus(8)));
}

TEST_CASE("nvls_collnet: every rank ends with the sum (reference executor)", "[coll][nvls]") {
  for (int hosts : {2, 3, 4})
    for (int per_host : {3, 4, 8}) {
      GroupShape g{hosts * per_host, 0, {}};
      for (int r = 0; r < g.n; ++r) g.host_of_rank.push_back(r / per_host);
      INFO(hosts << " x " << per_host);
      const ExecutionCheck res = run_reference(CollOp::all_reduce, nvls_collnet().expand(CollOp::all_reduce, g), 0);
      INFO(res.error);
      CHECK(res.ok);
    }
}

TEST_CASE("nvls_collnet: per-link bytes equal the expansion's (switch: the GPU's link; fabric: via the leaf)", "[coll][nvls]") {
  for (int hosts : {2, 3}) {
    const Topology topo = sharp_nvls_cluster(hosts, 4);
    const int n = 4 * hosts;
    const auto ranks = test::first_gpus(n);
    const double S = 12e6;
    const ChunkSchedule s =
        nvls_collnet().expand(CollOp::all_reduce, LoweringContext{&topo, CollOp::all_reduce, ranks, Bytes(S), 0, 1}.shape());
    NodeId leaf;
    for (const Node& nd : topo.nodes())
      if (nd.kind == NodeKind::leaf_switch) leaf = nd.id;
    const int first_agg = s.num_ranks + hosts;
    std::vector<double> want(topo.links().size(), 0.0);
    const double chunk = s.chunk_bytes(S);
    for (const ChunkStep& st : s.steps)
      for (const ChunkXfer& x : st.xfers) {
        const bool up = x.src < s.num_ranks;
        const GpuId r = ranks[static_cast<size_t>(up ? x.src : x.dst)];
        const int other = up ? x.dst : x.src;
        if (other >= first_agg) {  // to / from the fabric's reduction at the leaf
          const auto route = up ? topo.route(topo.gpu_node(r), leaf) : topo.route(leaf, topo.gpu_node(r));
          for (LinkId l : route) want[l.index()] += chunk;
        } else {  // to / from the server's NVSwitch: the GPU's link to it
          for (LinkId l : topo.out_links(topo.gpu_node(r)))
            if (topo.node(topo.link(l).dst).kind == NodeKind::nvswitch) want[l.index() + (up ? 0 : 1)] += chunk;
        }
      }
    const auto got = lower(topo, n, S).link_bytes(topo.links().size());
    INFO(hosts << " servers");
    for (size_t l = 0; l < got.size(); ++l) {
      INFO("link " << l);
      CHECK(got[l] == Approx(want[l]).margin(1e-3));
    }
  }
}

TEST_CASE("nvls_collnet closed form: bound by a server's NIC moving S, whatever the server count", "[coll][nvls]") {
  // Ideal model, 4 GPUs per server on a 450 GB/s NVSwitch and one 50 GB/s NIC per server: the GPU link
  // carries S (1 + 1/4) + S/4 = 1.5 S (t = S / 300 GB/s), the NIC the 4 parts, S (t = S / 50 GB/s).
  const NcclModelParams m = NcclModelParams::ideal();
  const double S = 1e9;
  for (int hosts : {2, 4}) {
    INFO(hosts << " servers");
    const Topology topo = sharp_nvls_cluster(hosts, 4);
    const double route = plan_route_latency(lower(topo, 4 * hosts, S)).seconds();
    CHECK(route == Approx(0.4e-6 + 1.6e-6));  // the NVLS load + store hops (GPU-NVSwitch-GPU), GPU to GPU via the leaf
    CHECK(seconds(topo, 4 * hosts, S, m) == Approx(route + S / 50e9).epsilon(1e-9));
  }
  // With a 1 TB/s NIC the NVSwitch-to-NIC PCIe link (64 GB/s), carrying the same S, binds; the GPU's
  // NVLink (1.5 S at 450 GB/s) still does not.
  const Topology fast = sharp_nvls_cluster(2, 4, GBps(1000));
  const double route = plan_route_latency(lower(fast, 8, S)).seconds();
  CHECK(seconds(fast, 8, S, m) == Approx(route + S / 64e9).epsilon(1e-9));
}

TEST_CASE("nvls_collnet latency: NCCL's NVLS row across nodes, intraLat + interLat (25 + 18 us)", "[coll][nvls]") {
  NcclModelParams m;
  m.device_latency_us = 0;
  const FlowPlan plan = lower(sharp_nvls_cluster(2, 8), 16, 1e6);
  CHECK(software_latency(m, LatencyClass::nvls, Protocol::simple, plan, HwKind::nvlink).micros() ==
        Approx(25.0 + 18.0 - plan_route_latency(plan).micros()));
}
