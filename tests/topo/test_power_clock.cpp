#include <catch2/catch.hpp>

#include <cmath>

#include "sim/compute/compute_model.hpp"
#include "sim/topo/gpu_catalog.hpp"
#include "sim/topo/power_clock.hpp"

using namespace plansim;

TEST_CASE("power limit: the exponent reproduces NVIDIA's H100 NVL / SXM dense peaks", "[compute][power]") {
  // The datasheet pair the exponent comes from (132 SMs both): NVL at 400 W must come out at its
  // 835.5 dense BF16 TFLOP/s from the SXM's 989.4 at 700 W.
  CHECK(989.4 * power_capped_clock_factor(400, 700) == Approx(835.5).epsilon(1e-3));
  // Just above the textbook cube law (P ∝ f³ gives (5/7)^(1/3) = 0.894).
  const double f = power_capped_clock_factor(500, 700);
  CHECK(f == Approx(std::pow(5.0 / 7.0, kPowerClockExponent)));
  CHECK(f > std::cbrt(5.0 / 7.0));
  CHECK(f < 1.0);
  CHECK(f == Approx(0.9033).epsilon(1e-3));
}

TEST_CASE("power limit: no limit, an unknown TDP or a limit at the TDP leave the clock alone", "[compute][power]") {
  CHECK(power_capped_clock_factor(0, 700) == 1.0);
  CHECK(power_capped_clock_factor(500, 0) == 1.0);
  CHECK(power_capped_clock_factor(700, 700) == 1.0);
  CHECK(power_capped_clock_factor(800, 700) == 1.0);
  // Monotone in the limit.
  CHECK(power_capped_clock_factor(300, 700) < power_capped_clock_factor(500, 700));
  const GpuSpec h100 = *find_gpu_model("H100-SXM-80GB");
  CHECK(h100.tdp_watts == 700);
  CHECK(h100.power_clock_factor() == 1.0);
}

TEST_CASE("power limit: FLOP-bound work slows by the clock factor, HBM-bound work does not", "[compute][power]") {
  GpuSpec capped = *find_gpu_model("H100-SXM-80GB");
  capped.power_limit_watts = 500;
  const double f = capped.power_clock_factor();
  for (DType dt : {DType::bf16, DType::fp8}) {
    const ComputeParams full = ComputeParams::defaults(*find_gpu_model("H100-SXM-80GB"), dt);
    const ComputeParams cap = ComputeParams::defaults(capped, dt);
    CHECK(cap.power_clock_factor == Approx(f));
    // Every GEMM time scales by exactly 1/f (the per-SM rate does; the epilogue is HBM-bound and
    // unchanged, so take a shape whose tiles' fixed cost is zero: no HBM time).
    ComputeParams a = full, b = cap;
    a.hbm = a.hbm * 1e9;
    b.hbm = b.hbm * 1e9;
    const GemmDims d{8192, 8192, 8192, 1};
    CHECK(ComputeModel(b).gemm_seconds(d) == Approx(ComputeModel(a).gemm_seconds(d) / f).epsilon(1e-9));
    // Flash attention and other FLOP-bound ops too.
    OpCost attn;
    attn.cls = OpClass::attention;
    attn.flops = 1e13;
    a.launch_overhead = b.launch_overhead = Time::zero();
    CHECK(ComputeModel(b).op_time(attn).seconds() == Approx(ComputeModel(a).op_time(attn).seconds() / f).epsilon(1e-9));
    // An HBM-bound elementwise op keeps its time.
    OpCost copy;
    copy.cls = OpClass::elementwise;
    copy.hbm_bytes = 1e9;
    const ComputeModel m_full(full), m_cap(cap);
    CHECK(m_cap.op_time(copy) == m_full.op_time(copy));
  }
}
