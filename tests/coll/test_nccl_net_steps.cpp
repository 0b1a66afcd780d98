// A multi-server ring's network steps as NCCL's tuner counts them (src/graph/tuning.cc ncclTopoTuneModel,
// NCCL 2.19-2.27: nInterSteps = allreduce ? 2 nNodes : nNodes - 1), checked in closed form, with the data
// each rank moves unchanged (the step count is latency only).
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
FlowPlan lower_ring(const Topology& topo, CollOp op, int n, double bytes) {
  const auto reg = make_default_registry();
  const std::vector<GpuId> ranks = test::first_gpus(n);
  return reg.find("ring")->lower(LoweringContext{&topo, op, ranks, Bytes(bytes), 0, 1});
}
}  // namespace

TEST_CASE("net steps: a ring all-reduce over N servers crosses the network 2N times, all-gather N-1", "[coll]") {
  for (int hosts : {2, 3, 4}) {
    const Topology topo = test::cluster_topology(hosts, 4);
    const int n = 4 * hosts;
    const FlowPlan ar = lower_ring(topo, CollOp::all_reduce, n, 64.0 * 1048576);
    CHECK(ar.steps_inter == 2 * hosts);
    CHECK(ar.steps_intra + ar.steps_inter == 2 * (n - 1));
    for (CollOp op : {CollOp::all_gather, CollOp::reduce_scatter}) {
      const FlowPlan p = lower_ring(topo, op, n, 64.0 * 1048576);
      CHECK(p.steps_inter == hosts - 1);
      CHECK(p.steps_intra + p.steps_inter == n - 1);
    }
  }
  // One server: no network step.
  const Topology one = test::cluster_topology(1, 8);
  CHECK(lower_ring(one, CollOp::all_reduce, 8, 1e6).steps_inter == 0);
}

TEST_CASE("net steps: 2 x 8 ring all-reduce latency is NCCL's base + 26 intra + 4 inter steps (x plateau)", "[coll]") {
  const Topology topo = test::cluster_topology(2, 8);
  const FlowPlan plan = lower_ring(topo, CollOp::all_reduce, 16, 64.0 * 1048576);
  NcclModelParams m;  // NCCL's tables: base Simple 8.4, NVLink ring Simple 3.4, net ring Simple 14.0 us
  m.net_overhead_us = 1.0;  // Intel host: max(3.4, 3 x 1.0) = 3.4 per intra step
  m.net_latency_us = 0.0;
  m.device_latency_us = 0.0;
  // The phases charge the ring's route latency, which the steps' latency stands for (nccl_model.hpp).
  const double route = plan_route_latency(plan).micros();
  REQUIRE(route > 0);
  const double simple = (8.4 + 26 * 3.4 + 4 * 14.0) * 1.4 - route;
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, plan, HwKind::nvlink).micros() == Approx(simple));
  // A net plugin's latency (graph latencyInter) is paid per network step, twice with Simple (the flush).
  m.net_latency_us = 5.0;
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, plan, HwKind::nvlink).micros() ==
        Approx((8.4 + 26 * 3.4 + 4 * (14.0 + 2 * 5.0)) * 1.4 - route));
  CHECK(software_latency(m, LatencyClass::ring, Protocol::ll128, plan, HwKind::nvlink).micros() ==
        Approx(14.0 + 26 * 1.9 + 4 * (4.0 + 5.0) - route));
  // The data moved is the ring's: each channel flow carries 2(n-1)/n of its share of S over every hop.
  double carried = 0;
  for (const auto& f : plan.phases.front().flows) carried += f.bytes.value();
  CHECK(carried == Approx(64.0 * 1048576 * 2.0 * 15 / 16));
}
