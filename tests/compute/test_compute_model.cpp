#include <catch2/catch.hpp>

#include "sim/compute/compute_model.hpp"

using namespace plansim;

namespace {
GpuSpec a100() {
  GpuSpec g;
  g.model = "A100-SXM4-80GB";
  g.peak_dense[DType::bf16] = TFLOPs_per_s(312);
  g.hbm_capacity = GB(80);
  g.hbm_bandwidth = GBps(2039);
  return g;
}
}  // namespace

TEST_CASE("compute model: big GEMMs approach MAMF, small ones do not", "[compute]") {
  ComputeParams p = ComputeParams::defaults(a100(), DType::bf16);
  CHECK(p.matmul.value() == Approx(271.2e12));
  p.launch_overhead = Time::zero();
  ComputeModel cm(p);
  OpCost big{"g", OpClass::gemm, 1e13, 1e6};
  // rate = 271.2e12 · F/(F + 2e9)
  CHECK(cm.op_time(big).seconds() == Approx((1e13 + 2e9) / 271.2e12).epsilon(1e-9));
  OpCost small{"g", OpClass::gemm, 2e9, 1e3};
  CHECK(cm.op_time(small).seconds() == Approx(2 * 2e9 / 271.2e12).epsilon(1e-6));  // half the rate
}

TEST_CASE("compute model: memory-bound ops take bytes / (0.85 · HBM bandwidth); launch overhead adds", "[compute]") {
  ComputeParams p = ComputeParams::defaults(a100(), DType::bf16);
  ComputeModel cm(p);
  OpCost e{"e", OpClass::elementwise, 0, 1e9};
  CHECK(cm.op_time(e).seconds() == Approx(1e9 / (0.85 * 2039e9) + 2e-6).epsilon(1e-9));
  ComputeOverrides o;
  o.matmul_tflops = 250;
  o.launch_overhead = Time::zero();
  CHECK(ComputeModel(p.with(o)).op_time(OpCost{"a", OpClass::attention, 1e12, 0}).seconds() ==
        Approx(1e12 / (0.75 * 250e12)));
}

TEST_CASE("MAMF table: H100 794.5, B200 1745, unknown GPU falls back to 0.8 × peak", "[compute]") {
  CHECK(mamf_tflops("H100-SXM-80GB", DType::bf16) == 794.5);
  CHECK(mamf_tflops("B200", DType::bf16) == 1745.0);
  GpuSpec g = a100();
  g.model = "MysteryGPU";
  CHECK(ComputeParams::defaults(g, DType::bf16).matmul.value() == Approx(0.8 * 312e12));
}
