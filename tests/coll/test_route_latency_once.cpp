// A hop's latency is paid once: NCCL's per-step latency (tuning.cc hwLat) already stands for the hop it
// crosses, so a call pays max(its steps' latency, its route's latency), not their sum (nccl_model.hpp
// software_latency). Closed forms on a uniform 8-GPU ring with only the NVLink ring LL step latency.
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
constexpr double kStepUs = 0.6;  // NVLink ring LL (tuning.cc hwLat)
NcclModelParams ll_step_latency_only() {
  NcclModelParams m = NcclModelParams::ideal();
  m.hw_latency_us[static_cast<size_t>(HwKind::nvlink)][static_cast<size_t>(LatencyClass::ring)] = {kStepUs, -1, -1};
  return m;
}
double ring_call_us(const Topology& topo, const NcclModelParams& m) {
  const auto reg = make_default_registry();
  const std::vector<GpuId> ranks = test::first_gpus(8);
  const FlowPlan plan = reg.find("ring")->lower(LoweringContext{&topo, CollOp::all_reduce, ranks, Bytes(8), 0, 1});
  return predict_time(m, LatencyClass::ring, Protocol::ll, plan, topo, HwKind::nvlink).micros();
}
}  // namespace

TEST_CASE("route latency once: a ring's hops faster than NCCL's step latency add nothing to it", "[coll]") {
  // 14 steps x 0.6 us = 8.4 us; the route: 8 hops of 50 ns around the ring, crossed 14 / 8 times = 0.7 us.
  const Topology topo = test::ring_topology(8, GBps(100), Time::ns(50));
  const NcclModelParams m = ll_step_latency_only();
  CHECK(ring_call_us(topo, m) == Approx(14 * kStepUs).margin(0.01));  // was 8.4 + 0.7 = 9.1 us
  // With the step latency gone, the route is what is left.
  CHECK(ring_call_us(topo, NcclModelParams::ideal()) == Approx(14 * 8 * 0.05 / 8).margin(0.01));
}

TEST_CASE("route latency once: hops slower than NCCL's step latency are paid instead of it", "[coll]") {
  // 5 us per link: the route around the ring, 14 / 8 times, is 70 us, more than 14 x 0.6 us.
  const Topology topo = test::ring_topology(8, GBps(100), Time::us(5));
  const NcclModelParams m = ll_step_latency_only();
  CHECK(ring_call_us(topo, m) == Approx(14 * 8 * 5.0 / 8).margin(0.01));  // was 70 + 8.4 us
  // Base latency and device latency stay on top of max(steps, route).
  NcclModelParams with_base = m;
  with_base.base_latency_us[static_cast<size_t>(LatencyClass::ring)][0] = 6.6;
  with_base.device_latency_us = 3.0;
  CHECK(ring_call_us(topo, with_base) == Approx(70.0 + 6.6 + 3.0).margin(0.01));
}
