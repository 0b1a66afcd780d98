// The Simple ring's per-slice latency over NVLink (nccl_channels.hpp latency_rounds) and `auto` ranking with NCCL's
// tuner view (selection.hpp), checked in closed form on a uniform ring.
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_channels.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/selection.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
// A model whose only latency is the NVLink ring per-step one (us per step, per protocol).
NcclModelParams step_latency_only(double ll, double ll128, double simple) {
  NcclModelParams m = NcclModelParams::ideal();
  m.hw_latency_us[static_cast<size_t>(HwKind::nvlink)][static_cast<size_t>(LatencyClass::ring)] = {ll, ll128, simple};
  return m;
}
FlowPlan ring_plan(const Topology& topo, int n, double bytes) {
  const auto reg = make_default_registry();
  const std::vector<GpuId> ranks = test::first_gpus(n);
  return reg.find("ring")->lower(LoweringContext{&topo, CollOp::all_reduce, ranks, Bytes(bytes), 0, 1});
}
}  // namespace

TEST_CASE("latency rounds: a Simple ring pays its per-step latency once per slice (2 per chunk), others once", "[coll]") {
  const Topology topo = test::ring_topology(8, GBps(100), Time::zero());
  const FlowPlan plan = ring_plan(topo, 8, 64.0 * 1048576);
  NcclModelParams m = step_latency_only(0.5, 1.5, 3.0);
  m.simple_slices_per_chunk = 2;  // ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS
  CHECK(latency_rounds(m, Protocol::simple, plan, HwKind::nvlink) == 2);
  CHECK(latency_rounds(m, Protocol::ll128, plan, HwKind::nvlink) == 1);
  CHECK(latency_rounds(m, Protocol::ll, plan, HwKind::nvlink) == 1);
  CHECK(latency_rounds(m, Protocol::simple, plan, HwKind::pci) == 1);  // PCIe / host memory: once per step
  // 2(n-1) = 14 steps: Simple 2 x 14 x 3 us; LL128 14 x 1.5 us. The rounds do not grow with the size.
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, plan, HwKind::nvlink).micros() == Approx(84.0));
  CHECK(software_latency(m, LatencyClass::ring, Protocol::ll128, plan, HwKind::nvlink).micros() == Approx(21.0));
  const FlowPlan big = ring_plan(topo, 8, 64.0 * 1073741824);
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, big, HwKind::nvlink).micros() == Approx(84.0));
  m.simple_slices_per_chunk = 0;  // NCCL's tuning model: once per step
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, plan, HwKind::nvlink).micros() == Approx(42.0));
  // Device latency adds to every call.
  m.device_latency_us = 5;
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, plan, HwKind::nvlink).micros() == Approx(47.0));
}

TEST_CASE("auto: ranked with NCCL's tuner view, costed with the full model", "[coll]") {
  // n = 8 on 100 GB/s links, ideal bandwidths: LL128 costs 14 x 1 us per call, Simple 14 x 2 us in the
  // tuner's view (once per step) but 2 x 14 x 2 us in the kernel. At a size where the tuner's Simple
  // is faster than LL128 with its 0.5 efficiency but the kernel's is not, auto keeps the tuner's choice
  // (Simple) and reports the kernel's cost.
  const int n = 8;
  const Rate B = GBps(100);
  const Topology topo = test::ring_topology(n, B, Time::zero());
  NcclModelParams m = step_latency_only(-1, 1.0, 2.0);
  m.base_latency_us[static_cast<size_t>(LatencyClass::ring)][0] = -1;  // LL off
  m.protocol_efficiency = {1.0, 0.5, 1.0};
  m.simple_slices_per_chunk = 2;
  m.device_latency_us = 100;  // the tuner does not see it either
  // Bus time of S at B: 2(n-1)/n S / B. LL128 - Simple (tuner) = bus/B (1/0.5 - 1) - 14 us; choose S
  // with bus time 20 us: LL128 = 40 + 14, Simple(tuner) = 20 + 28 -> Simple; Simple(kernel) = 20 + 56.
  const double S = 20e-6 * B.value() * n / (2.0 * (n - 1));
  const auto reg = make_default_registry();
  const CollectiveChoice c =
      choose_collective(reg, m, topo, CollectiveCall{CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, "ring", "auto"});
  CHECK(c.protocol == Protocol::simple);
  CHECK(c.predicted.micros() == Approx(20.0 + 56.0 + 100.0).epsilon(1e-6));
}

TEST_CASE("latency rounds: a Simple ring's time is rounds x steps x latency + S_bus / B; busbw tends to B", "[coll]") {
  const int n = 8;
  const Rate B = GBps(100);
  const Topology topo = test::ring_topology(n, B, Time::zero());
  NcclModelParams m = step_latency_only(0.5, 1.5, 3.0);
  m.simple_slices_per_chunk = 2;
  const auto reg = make_default_registry();
  auto predicted = [&](double S) {
    return choose_collective(reg, m, topo, CollectiveCall{CollOp::all_reduce, test::first_gpus(n), Bytes(S), 0, "ring", "Simple"})
        .predicted.seconds();
  };
  const double bus = 2.0 * (n - 1) / n;
  const double S = 64.0 * 1048576;
  CHECK(predicted(S) == Approx(84e-6 + bus * S / B.value()).epsilon(1e-6));
  const double huge = 1e13;  // the fixed rounds vanish against the bandwidth term: busbw -> B
  CHECK(bus * huge / predicted(huge) == Approx(B.value()).epsilon(1e-5));
}

TEST_CASE("latency rounds: a multi-server Simple ring pays its steps once, x NCCL's plateau factor (1.4 on Ampere+)", "[coll]") {
  const Topology topo = test::cluster_topology(2, 4);
  const FlowPlan plan = ring_plan(topo, 8, 64.0 * 1048576);
  REQUIRE(plan.ring_plateau);
  REQUIRE(plan.steps_inter == 4);  // 2 nNodes (tuning.cc 2.19-2.27)
  REQUIRE(plan.steps_intra == 10);
  CHECK(NcclModelParams{}.ring_plateau_factor == 1.4);  // tuning.cc: minCompCap < 80 ? 1.9 : 1.4
  NcclModelParams m = step_latency_only(0.5, 1.5, 3.0);
  m.hw_latency_us[static_cast<size_t>(HwKind::net)][static_cast<size_t>(LatencyClass::ring)] = {2.0, 4.0, 14.0};
  m.simple_slices_per_chunk = 2;
  m.ring_plateau_factor = 1.4;
  // The plateau factor is NCCL's charge for the Simple ring's extra latency across servers: no second round.
  CHECK(latency_rounds(m, Protocol::simple, plan, HwKind::nvlink) == 1);
  // The phases charge the ring's route latency; the steps' latency stands for it (nccl_model.hpp).
  const double route = plan_route_latency(plan).micros();
  REQUIRE(route > 0);
  REQUIRE(route < 10 * 1.5 + 4 * 4.0);
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, plan, HwKind::nvlink).micros() ==
        Approx((10 * 3.0 + 4 * 14.0) * 1.4 - route));
  CHECK(software_latency(m, LatencyClass::ring, Protocol::ll128, plan, HwKind::nvlink).micros() ==
        Approx(10 * 1.5 + 4 * 4.0 - route));
}

TEST_CASE("ring route latency: a slice crosses each hop steps / m times (sum of the hops, not the slowest x steps)", "[coll]") {
  // 2 servers x 4 GPUs: GPU -> NVSwitch -> GPU is 2 x 200 ns; a server crossing is GPU -> switch (200) ->
  // NIC (100) -> leaf (500) -> NIC (500) -> switch (100) -> GPU (200) = 1600 ns.
  const Topology topo = test::cluster_topology(2, 4);
  const std::vector<GpuId> r = test::first_gpus(8);
  CHECK(route_latency(topo, r[0], r[1]).seconds() == Approx(400e-9));
  CHECK(route_latency(topo, r[3], r[4]).seconds() == Approx(1600e-9));
  const PlannedFlow f = ring_flow(topo, r, Bytes(1e6), 14);
  CHECK(f.latency.seconds() == Approx((6 * 400e-9 + 2 * 1600e-9) * 14 / 8).epsilon(1e-9));
  // A uniform ring: steps x the hop latency, as before.
  const Topology ring = test::ring_topology(8, GBps(100), Time::ns(500));
  CHECK(ring_flow(ring, r, Bytes(1e6), 14).latency.seconds() == Approx(14 * 500e-9).epsilon(1e-9));
}
