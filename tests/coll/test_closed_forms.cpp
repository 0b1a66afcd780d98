// Closed forms on a uniform ring topology with the protocol model switched to ideal (no software
// latency, efficiency 1): ring all-reduce = 2(n-1)α + 2(n-1)/n·S/B, ring all-gather = (n-1)α + (n-1)/n·S/B.
#include <catch2/catch.hpp>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/algorithm.hpp"
#include "sim/coll/reference_executor.hpp"
#include "sim/net/flow_network.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
CollectiveResult run_one(const Topology& topo, const CollectiveCall& call, const NcclModelParams& m) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, m);
  CollectiveResult out;
  bool done = false;
  runner.start(call, [&](const CollectiveResult& r) {
    out = r;
    done = true;
  });
  sim.run();
  REQUIRE(done);
  return out;
}
double secs(const CollectiveResult& r) { return (r.end - r.start).seconds(); }
}  // namespace

TEST_CASE("closed form: ring all-reduce and all-gather on a uniform ring", "[coll]") {
  const double B = 50e9, alpha = 500e-9;
  for (int n : {2, 3, 5, 8, 16}) {
    const Topology topo = test::ring_topology(n, GBps(50), Time::ns(500));
    const double S = 1e9;
    const auto ar = run_one(topo, {CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, "ring"}, NcclModelParams::ideal());
    CHECK(secs(ar) == Approx(2 * (n - 1) * alpha + 2.0 * (n - 1) / n * S / B).epsilon(1e-6));
    const auto ag = run_one(topo, {CollOp::all_gather, test::first_gpus(n), Bytes(S), 0, "ring"}, NcclModelParams::ideal());
    CHECK(secs(ag) == Approx((n - 1) * alpha + 1.0 * (n - 1) / n * S / B).epsilon(1e-6));
    const auto rs = run_one(topo, {CollOp::reduce_scatter, test::first_gpus(n), Bytes(S), 0, "ring"}, NcclModelParams::ideal());
    CHECK(secs(rs) == Approx(secs(ag)).epsilon(1e-6));
  }
}

TEST_CASE("closed form: NCCL latency model adds base + steps x hw latency; efficiency scales bandwidth", "[coll]") {
  const int n = 8;
  const Topology topo = test::ring_topology(n, GBps(50), Time::zero());
  NcclModelParams m = NcclModelParams::ideal();
  m.base_latency_us[0][2] = 8.4;   // ring Simple
  m.hw_latency_us[0][0][2] = 3.4;  // NVLink ring Simple per step
  m.nvlink_efficiency = 0.8;
  const double S = 1e9;
  const auto r = run_one(topo, {CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, "ring", "Simple"}, m);
  CHECK(r.protocol == "Simple");
  CHECK(secs(r) == Approx(8.4e-6 + 2 * (n - 1) * 3.4e-6 + 2.0 * (n - 1) / n * S / (0.8 * 50e9)).epsilon(1e-6));
}

TEST_CASE("closed form: NVLS moves S + S/n up and down per GPU: busbw = 2(n-1)/n x n/(n+1) x link rate", "[coll]") {
  for (int n : {4, 8}) {
    const Topology topo = test::cluster_topology(1, n, true);
    const double S = 8e9;
    const auto r = run_one(topo, {CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, "nvls"}, NcclModelParams::ideal());
    // Up and down are one coupled flow over distinct links: S (1 + 1/n) at 450 GB/s, plus two 200 ns hops.
    CHECK(secs(r) == Approx(S * (1.0 + 1.0 / n) / 450e9 + 400e-9).epsilon(1e-6));
    const double busbw = S / secs(r) * busbw_factor(CollOp::all_reduce, n);
    CHECK(busbw == Approx(2.0 * (n - 1) / n * n / (n + 1.0) * 450e9).epsilon(1e-4));  // the hops: 2e-5
  }
}

TEST_CASE("closed form: HBM reduction cost (2 reads + 1 write per reduced byte) bounds a fast ring", "[coll]") {
  TopologyBuilder b("fast");
  GpuSpec spec;
  spec.hbm_bandwidth = GBps(30);  // absurdly slow HBM so the reduction dominates
  b.set_gpu_spec(spec);
  NodeId g0 = b.add_node(NodeKind::gpu, "g0", 0, 0), g1 = b.add_node(NodeKind::gpu, "g1", 0, 1);
  b.add_duplex(g0, g1, LinkKind::nvlink, GBps(1000), Time::zero());
  const Topology topo = std::move(b).build();
  const double S = 1e9;
  const auto r = run_one(topo, {CollOp::all_reduce, test::first_gpus(2), Bytes(S), 0, "ring"}, NcclModelParams::ideal());
  CHECK(secs(r) == Approx(3 * 0.5 * S / 30e9).epsilon(1e-6));  // (n-1)/n·S reduced per GPU
}

TEST_CASE("contention: two rings crossing one NIC each get half of it", "[coll]") {
  const Topology topo = test::cluster_topology(2, 2, false, GBps(450), GBps(50));
  // Ring A: h0g0 <-> h1g0, ring B: h0g1 <-> h1g1; both leave each host through its single NIC.
  const std::vector<GpuId> a{GpuId(0), GpuId(2)}, bb{GpuId(1), GpuId(3)};
  const NcclModelParams m = NcclModelParams::ideal();
  const double S = 1e9;
  const double alone = secs(run_one(topo, {CollOp::all_reduce, a, Bytes(S), 0, "ring"}, m));
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, m);
  std::vector<double> t;
  runner.start({CollOp::all_reduce, a, Bytes(S), 0, "ring"}, [&](const CollectiveResult& r) { t.push_back(secs(r)); });
  runner.start({CollOp::all_reduce, bb, Bytes(S), 0, "ring"}, [&](const CollectiveResult& r) { t.push_back(secs(r)); });
  sim.run();
  REQUIRE(t.size() == 2);
  CHECK(alone == Approx(2.0 * 1 / 2 * S / 50e9).epsilon(1e-3));  // the NIC is the bottleneck
  CHECK(t[0] == Approx(2 * alone).epsilon(1e-3));
  CHECK(t[1] == Approx(2 * alone).epsilon(1e-3));
}

TEST_CASE("busbw factors are nccl-tests'", "[coll]") {
  CHECK(busbw_factor(CollOp::all_reduce, 8) == Approx(14.0 / 8));
  CHECK(busbw_factor(CollOp::all_gather, 8) == Approx(7.0 / 8));
  CHECK(busbw_factor(CollOp::reduce_scatter, 4) == Approx(3.0 / 4));
  CHECK(busbw_factor(CollOp::all_to_all, 16) == Approx(15.0 / 16));
  CHECK(busbw_factor(CollOp::broadcast, 8) == 1.0);
  CHECK(busbw_factor(CollOp::reduce, 8) == 1.0);
  CHECK(busbw_factor(CollOp::send_recv, 2) == 1.0);
  CHECK(coll_op_from_string("allreduce") == CollOp::all_reduce);
  CHECK(coll_op_from_string("all-gather") == CollOp::all_gather);
  CHECK(coll_op_from_string("reduce_scatter") == CollOp::reduce_scatter);
  CHECK_FALSE(coll_op_from_string("allsum").has_value());
}

TEST_CASE("auto: NVLS for large all-reduce on an NVLS switch, a low-latency protocol for tiny ones", "[coll]") {
  const Topology topo = test::cluster_topology(1, 8, true);
  const NcclModelParams m;
  const auto big = run_one(topo, {CollOp::all_reduce, test::first_gpus(8), GiB(8), 0, "auto"}, m);
  CHECK(big.algorithm == "nvls");
  const auto small = run_one(topo, {CollOp::all_reduce, test::first_gpus(8), KiB(8), 0, "auto"}, m);
  CHECK(small.protocol == "LL");
  const Topology plain = test::cluster_topology(1, 8, false);
  const auto ring = run_one(plain, {CollOp::all_reduce, test::first_gpus(8), GiB(8), 0, "auto"}, m);
  CHECK(ring.algorithm == "ring");
  CHECK(ring.protocol == "Simple");
  // 8 GiB ring all-reduce with the default model: busbw ~ 0.82 x 450 GB/s (NCCL's ~370 GB/s on H100).
  const double busbw = GiB(8).value() / (ring.end - ring.start).seconds() * busbw_factor(CollOp::all_reduce, 8);
  CHECK(busbw / 1e9 == Approx(369).epsilon(0.02));
}

// nccl-tests' alltoall: S is each rank's send buffer, S/n to every peer (busbw = algbw·(n−1)/n), so on
// one NVSwitch every GPU's link carries S·(n−1)/n each way: time = (n−1)/n·S/B (+ the hop latency).
TEST_CASE("closed form: direct all-to-all sends S/n to each peer: (n-1)/n x S per GPU link", "[coll]") {
  for (int n : {2, 4, 8}) {
    const Topology topo = test::cluster_topology(1, n, false, GBps(450));
    const double S = 1e9;
    const auto r = run_one(topo, {CollOp::all_to_all, test::first_gpus(n), Bytes(S), 0, "direct"}, NcclModelParams::ideal());
    CHECK(secs(r) == Approx((n - 1.0) / n * S / 450e9).epsilon(1e-3));
  }
  const AlgorithmRegistry reg = make_default_registry();
  const ChunkSchedule s = reg.find("direct")->expand(CollOp::all_to_all, GroupShape::flat(8));
  for (double sent : bytes_sent_per_participant(s, 8e6)) CHECK(sent == Approx(7e6));
}
