#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/compute/compute_model.hpp"
#include "sim/topo/gpu_catalog.hpp"
#include "tests/support/gpu_specs.hpp"

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

using testing::h100;

// H100 parameters with the per-tile epilogue made negligible (HBM 1e9 × faster) and no launch
// overhead: a GEMM's time is then waves × k_steps × step time of the chosen tile, exactly.
ComputeParams loop_only(DType dt = DType::bf16) {
  ComputeParams p = ComputeParams::defaults(h100(), dt);
  p.hbm = p.hbm * 1e9;
  p.launch_overhead = Time::zero();
  return p;
}

TEST_CASE("GEMM model: the shape MAMF was measured on runs at exactly MAMF", "[compute]") {
  for (DType dt : {DType::bf16, DType::fp8}) {
    const ComputeParams p = ComputeParams::defaults(h100(), dt);
    const ComputeModel cm(p);
    const GemmDims a = p.mamf_shape;
    CHECK(cm.gemm_seconds(a) == Approx(a.flops() / p.matmul.value()).epsilon(1e-9));
  }
  CHECK(ComputeParams::defaults(h100(), DType::bf16).mamf_shape.k == 13312);  // mamf-finder's best H100 shape
  // A100 (108 SMs) too, with the epilogue and a tile latency in the anchor.
  GpuSpec a = a100();
  a.sm_count = 108;
  ComputeParams pa = ComputeParams::defaults(a, DType::bf16);
  pa.gemm_tile_latency = Time::us(1);
  CHECK(ComputeModel(pa).gemm_seconds(pa.mamf_shape) == Approx(pa.mamf_shape.flops() / 271.2e12).epsilon(1e-9));
}

TEST_CASE("GEMM model: one extra row adds a whole wave (wave quantisation)", "[compute]") {
  // 132 SMs, 128×256 tiles: M = 12·128, N = 11·256 is 132 tiles, one full wave. One more row makes
  // 13·11 = 143 tiles: two waves, the second 11/132 full, so twice the time where K is one step deep
  // (nothing to split). No other tile does better: 128×128 (3/4 of the big tile's rate) 286 tiles =
  // 3 waves of half-work tiles = 2.0 waves' time; 64×128 550 = 5 waves × 1/2 work at 1/2 rate = 2.5;
  // 64×64 9 waves × 1/4 at 3/8 = 3.
  const ComputeModel cm(loop_only());
  const double thin = cm.gemm_seconds(GemmDims{1536, 2816, 64, 1});
  CHECK(cm.gemm_seconds(GemmDims{1537, 2816, 64, 1}) / thin == Approx(2.0).epsilon(1e-6));
  // Tile quantisation: M = 1537..1664 all cost the same (one more 128-row tile).
  CHECK(cm.gemm_seconds(GemmDims{1664, 2816, 64, 1}) == Approx(2 * thin).epsilon(1e-6));
  // One full wave of 128×256×64 tiles: 128 k-steps of 2·128·256·64 FLOPs at the anchored SM rate.
  const double one = cm.gemm_seconds(GemmDims{1536, 2816, 8192, 1});
  CHECK(one == Approx(128 * 2.0 * 128 * 256 * 64 / cm.sm_rate()).epsilon(1e-9));
  // Sustained factor: every GEMM slower by 1/f.
  ComputeParams p = loop_only();
  p.sustained_factor = 0.8;
  CHECK(ComputeModel(p).gemm_seconds(GemmDims{1536, 2816, 8192, 1}) == Approx(one / 0.8).epsilon(1e-9));
}

TEST_CASE("GEMM model: a partly empty last wave is filled by dealing K steps to the SMs (stream-K)", "[compute]") {
  // 1537×2816×8192: 143 tiles of 128×256, 128 K steps each. Whole tiles: 2 waves × 128 steps. Stream-K:
  // 143 · 128 steps over 132 SMs = ceil(138.67) = 139 steps per SM (128×128 tiles: 286 · 128 / 132 =
  // 278 half-work steps at 3/4 rate = 185.3, worse). With the epilogue negligible (loop_only) the
  // time is 139/128 of one full wave, not twice it.
  const ComputeModel cm(loop_only());
  const double one = cm.gemm_seconds(GemmDims{1536, 2816, 8192, 1});
  CHECK(cm.gemm_seconds(GemmDims{1537, 2816, 8192, 1}) / one == Approx(139.0 / 128).epsilon(1e-9));
  // With the real HBM and serialized epilogues (an Ampere-style kernel: epilogue_overlap off) each SM
  // also writes two epilogues and round-trips one fp32 partial tile (128·256·4 bytes, twice) at its
  // share of 0.85 · 3.35 TB/s, on top of the 139 steps.
  ComputeParams p = ComputeParams::defaults(h100(), DType::bf16);
  p.epilogue_overlap = false;
  const ComputeModel real(p);
  const double sm_hbm = 3350e9 * 0.85 / 132;
  const double step = 2.0 * 128 * 256 * 64 / real.sm_rate();
  CHECK(real.gemm_seconds(GemmDims{1537, 2816, 8192, 1}) ==
        Approx(139 * step + 2 * (128.0 * 256 * 2 / sm_hbm) + 2 * 128.0 * 256 * 4 / sm_hbm).epsilon(1e-9));
  // A full wave gains nothing from it: one tile per SM, no fixup.
  CHECK(real.gemm_seconds(GemmDims{1536, 2816, 8192, 1}) ==
        Approx(128 * step + 128.0 * 256 * 2 / sm_hbm).epsilon(1e-9));
}

TEST_CASE("GEMM model: the anchored main-loop rate stays below the GPU's dense peak", "[compute]") {
  // H100 SXM dense peaks 989 (bf16) and 1,979 (fp8) TFLOP/s (NVIDIA H100 datasheet). The per-SM rate
  // that times each dtype's MAMF shape at MAMF, times the SMs, is the full-wave rate of the largest
  // tile: it must not exceed the peak (without split-K the fp8 anchor needs ~2,400).
  const GpuSpec g = h100();
  for (DType dt : {DType::bf16, DType::fp8}) {
    const ComputeModel cm(ComputeParams::defaults(g, dt));
    CHECK(cm.sm_rate() * g.sm_count < g.peak(dt).value());
    CHECK(cm.sm_rate() * g.sm_count > 0.7 * g.peak(dt).value());
  }
}

TEST_CASE("GEMM model: K rounds up to the tile's K step, 64 bf16 or 128 fp8 elements (128 bytes)", "[compute]") {
  const ComputeModel bf16(loop_only(DType::bf16));
  const GemmDims d{1536, 2816, 8192, 1};
  const GemmDims d1{1536, 2816, 8193, 1};
  CHECK(bf16.gemm_seconds(d1) / bf16.gemm_seconds(d) == Approx(129.0 / 128).epsilon(1e-9));
  const ComputeModel fp8(loop_only(DType::fp8));
  CHECK(fp8.gemm_seconds(d1) / fp8.gemm_seconds(d) == Approx(65.0 / 64).epsilon(1e-9));
  // K = 1 costs a full 64-deep step.
  CHECK(bf16.gemm_seconds(GemmDims{1536, 2816, 1, 1}) == Approx(bf16.gemm_seconds(GemmDims{1536, 2816, 64, 1})));
}

TEST_CASE("GEMM model: a serialized epilogue is paid per tile, so thin K runs below MAMF", "[compute]") {
  // One wave of 128×256 tiles: T(K) = fixed + (K/64)·step. The fixed part is the tile's bf16 output
  // (128·256·2 bytes) at one SM's share of 0.85 · 3.35 TB/s. (H100 parameters, Ampere-style kernels.)
  ComputeParams p = ComputeParams::defaults(h100(), DType::bf16);
  p.epilogue_overlap = false;
  const ComputeModel cm(p);
  auto t = [&](double k) { return cm.gemm_seconds(GemmDims{1536, 2816, k, 1}); };
  const double step = t(8192) - t(8192 - 64);
  CHECK(t(4096) - t(2048) == Approx(32 * step).epsilon(1e-9));
  const double fixed = t(64) - step;
  CHECK(fixed == Approx(128.0 * 256 * 2 / (3350e9 * 0.85 / 132)).epsilon(1e-9));
  const double rate = [&](double k) { return 2.0 * 1536 * 2816 * k / t(k); }(512);
  CHECK(rate < 0.7 * p.matmul.value());  // K = 512: 8 steps beside a 2.6 us epilogue
  // Small hidden sizes: a 1024×1024×1024 GEMM (32 big tiles or 256 small ones on 132 SMs) is far from MAMF.
  CHECK(GemmDims{1024, 1024, 1024, 1}.flops() / cm.gemm_seconds(GemmDims{1024, 1024, 1024, 1}) < 0.5 * p.matmul.value());
}

TEST_CASE("GEMM model: Hopper and Blackwell overlap each tile's epilogue with the next tile's main loop", "[compute]") {
  // Persistent warp-specialized kernels (sm_90 and later): a tile costs max(epilogue, main loop).
  for (const char* gpu : {"H100-SXM-80GB", "H200-SXM-141GB", "GH200", "B200", "GB200", "B300"})
    CHECK(persistent_gemm_kernels(gpu));
  for (const char* gpu : {"A100-SXM-80GB", "A100-PCIe-80GB", "RTX-4090", "L40S", "MI300X"}) CHECK_FALSE(persistent_gemm_kernels(gpu));
  const ComputeParams p = ComputeParams::defaults(h100(), DType::bf16);
  REQUIRE(p.epilogue_overlap);
  const ComputeModel cm(p);
  auto t = [&](double k) { return cm.gemm_seconds(GemmDims{1536, 2816, k, 1}); };
  const double step = 2.0 * 128 * 256 * 64 / cm.sm_rate();
  const double epilogue = 128.0 * 256 * 2 / (3350e9 * 0.85 / 132);  // 3.0 us, about 4.3 steps
  // One wave of 128×256 tiles: max(epilogue, K/64 steps), the epilogue up to K = 256, the loop beyond.
  for (double k : {64.0, 128.0, 256.0, 512.0, 2048.0, 4096.0})
    CHECK(t(k) == Approx(std::max(epilogue, k / 64 * step)).epsilon(1e-9));
  CHECK(t(256) == Approx(epilogue).epsilon(1e-9));
  CHECK(t(4096) - t(2048) == Approx(32 * step).epsilon(1e-9));
  // The anchor: with the epilogue hidden, mamf_shape (2048×2048×13312) runs at MAMF on the main loop
  // alone, so the serialized model's main loop is faster by the epilogue's share of the anchor tile.
  ComputeParams serial = p;
  serial.epilogue_overlap = false;
  CHECK(cm.gemm_seconds(p.mamf_shape) == Approx(p.mamf_shape.flops() / p.matmul.value()).epsilon(1e-9));
  CHECK(ComputeModel(serial).sm_rate() > cm.sm_rate());
  // Thin K is where the two differ most: at K = 256 the serialized kernel pays epilogue + 4 steps.
  const ComputeModel sm(serial);
  const double serial_step = 2.0 * 128 * 256 * 64 / sm.sm_rate();
  CHECK(sm.gemm_seconds(GemmDims{1536, 2816, 256, 1}) == Approx(epilogue + 4 * serial_step).epsilon(1e-9));
}

TEST_CASE("GEMM model: grouped expert GEMMs quantise per expert; dropless charges the busiest rank", "[compute]") {
  ComputeParams p = loop_only();
  const ComputeModel cm(p);
  // 8 experts of 100 tokens each run as 8 experts of 128 (tile quantisation per expert).
  CHECK(cm.gemm_seconds(GemmDims{100, 4096, 4096, 8}) == Approx(cm.gemm_seconds(GemmDims{128, 4096, 4096, 8})));
  OpCost up{"expert_up", OpClass::gemm, 2.0 * 800 * 4096 * 4096, 0, GemmDims{100, 4096, 4096, 8}};
  up.expert = ExpertGemm{true, false, true};
  p.moe_load_imbalance = 2.6;
  p.grouped_gemm_efficiency = 0.9;
  // m = 100 · 2.6 = 260 tokens per expert on the busiest rank, at 0.9 of the dense rate.
  CHECK(ComputeModel(p).op_time(up).seconds() ==
        Approx(cm.gemm_seconds(GemmDims{260, 4096, 4096, 8}) / 0.9).epsilon(1e-6));
  // The weight gradient's token extent is K.
  OpCost wg{"expert_up_wgrad", OpClass::gemm, up.flops, 0, GemmDims{4096, 4096, 100, 8}};
  wg.expert = ExpertGemm{true, true, true};
  CHECK(ComputeModel(p).op_time(wg).seconds() ==
        Approx(cm.gemm_seconds(GemmDims{4096, 4096, 260, 8}) / 0.9).epsilon(1e-6));
}

TEST_CASE("compute model: expert_launch_overhead charges each grouped GEMM the host's issue time per local expert",
          "[compute]") {
  ComputeParams p = loop_only();
  OpCost up{"expert_up", OpClass::gemm, 2.0 * 1600 * 2048 * 1536, 0, GemmDims{100, 1536, 2048, 16}};
  up.expert = ExpertGemm{true, false, true};
  OpCost wg{"expert_up_wgrad", OpClass::gemm, up.flops, 0, GemmDims{2048, 1536, 100, 16}};
  wg.expert = ExpertGemm{true, true, true};
  OpCost dense{"mlp_up", OpClass::gemm, 2.0 * 1600 * 2048 * 1536, 0, GemmDims{1600, 1536, 2048, 1}};
  const double up0 = ComputeModel(p).op_time(up).seconds(), wg0 = ComputeModel(p).op_time(wg).seconds();
  const double dense0 = ComputeModel(p).op_time(dense).seconds();
  p.expert_launch_overhead = Time::us(20);
  const ComputeModel cm(p);
  // 16 local experts: 16 × 20 us on top of the kernel time, forward and weight gradient alike.
  CHECK(cm.op_time(up).seconds() - up0 == Approx(16 * 20e-6).epsilon(1e-9));
  CHECK(cm.op_time(wg).seconds() - wg0 == Approx(16 * 20e-6).epsilon(1e-9));
  // A dense GEMM of the same FLOPs pays nothing more.
  CHECK(cm.op_time(dense).seconds() == Approx(dense0).epsilon(1e-12));
  // Half the experts per rank (twice the expert parallelism), half the host time.
  OpCost half = up;
  half.dims = GemmDims{200, 1536, 2048, 8};
  const double half_with = cm.op_time(half).seconds();
  p.expert_launch_overhead = Time::zero();
  CHECK(half_with - ComputeModel(p).op_time(half).seconds() == Approx(8 * 20e-6).epsilon(1e-9));
}

TEST_CASE("compute model: attention is timed on its executed work, at attention_efficiency · sustained · MAMF",
          "[compute]") {
  ComputeParams p = ComputeParams::defaults(h100(), DType::bf16);
  p.launch_overhead = Time::zero();
  p.sustained_factor = 0.9;
  OpCost a{"attention_core", OpClass::attention, 1e12, 0};
  a.executed = 0.5;
  CHECK(ComputeModel(p).op_time(a).seconds() == Approx(0.5e12 / (0.75 * 0.9 * 794.5e12)).epsilon(1e-6));
}

TEST_CASE("compute model: training.attention flash2 runs flash attention at flash2_attention_efficiency", "[compute]") {
  Scenario s;
  s.model.dtype = DType::bf16;
  s.compute.attention_efficiency = 0.6;
  s.compute.flash2_attention_efficiency = 0.3;
  OpCost a{"attention_core", OpClass::attention, 1e12, 0};
  auto seconds = [&](AttentionKernel k) {
    s.training.attention = k;
    ComputeParams p = ComputeParams::for_scenario(h100(), s);
    p.launch_overhead = Time::zero();
    return ComputeModel(p).op_time(a).seconds();
  };
  CHECK(seconds(AttentionKernel::flash) == Approx(1e12 / (0.6 * 794.5e12)).epsilon(1e-6));
  CHECK(seconds(AttentionKernel::flash2) == Approx(2 * seconds(AttentionKernel::flash)).epsilon(1e-9));
  // A profile without a FlashAttention-2 rate: flash2 falls back to attention_efficiency.
  s.compute.flash2_attention_efficiency.reset();
  CHECK(seconds(AttentionKernel::flash2) == Approx(seconds(AttentionKernel::flash)).epsilon(1e-12));
}

TEST_CASE("compute model: a flash kernel on an ALiBi model runs at alibi_attention_efficiency", "[compute]") {
  Scenario s;
  s.model.dtype = DType::bf16;
  s.compute.attention_efficiency = 0.6;
  s.compute.flash2_attention_efficiency = 0.36;
  s.compute.alibi_attention_efficiency = 0.3;
  auto efficiency = [&](AttentionKernel k, bool alibi) {
    s.training.attention = k;
    s.model.attention.alibi = alibi;
    return ComputeParams::for_scenario(h100(), s).attention_efficiency;
  };
  CHECK(efficiency(AttentionKernel::flash, false) == 0.6);
  CHECK(efficiency(AttentionKernel::flash2, false) == 0.36);
  CHECK(efficiency(AttentionKernel::flash, true) == 0.3);
  CHECK(efficiency(AttentionKernel::flash2, true) == 0.3);
  // Materialised attention (two batched GEMMs) does not use a flash efficiency: unchanged by ALiBi.
  CHECK(efficiency(AttentionKernel::materialised, true) == efficiency(AttentionKernel::materialised, false));
  // A profile without an ALiBi rate: the kernel's own.
  s.compute.alibi_attention_efficiency.reset();
  CHECK(efficiency(AttentionKernel::flash2, true) == 0.36);
  CHECK(efficiency(AttentionKernel::flash, true) == 0.6);
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

TEST_CASE("compute model: fp8 training runs its attention at the bf16 rate", "[compute]") {
  // Transformer Engine's FP8 recipes quantise the linear layers only: the attention op of an fp8 model
  // takes exactly as long as the same op in a bf16 model (794.5, not 1453.4 TFLOP/s on H100).
  ComputeParams p8 = ComputeParams::defaults(h100(), DType::fp8);
  ComputeParams p16 = ComputeParams::defaults(h100(), DType::bf16);
  const OpCost a{"attention_core", OpClass::attention, 1e12, 0};
  CHECK(ComputeModel(p8).op_time(a) == ComputeModel(p16).op_time(a));
  CHECK(p8.matmul.value() == Approx(1453.4e12));
  CHECK(p8.attention_matmul.value() == Approx(794.5e12));
}

TEST_CASE("compute model: materialised attention adds its scores' HBM traffic to the math", "[compute]") {
  // t = max(flops / rate, fused bytes / bw) + unfused bytes / bw: the softmax and dropout kernels run
  // between the two products, so their traffic cannot hide under them.
  ComputeParams p = ComputeParams::defaults(h100(), DType::bf16);
  p.launch_overhead = Time::zero();
  OpCost a{"attention_core", OpClass::attention, 1e12, 1e6};
  a.unfused_bytes = 4e9;
  const double bw = 0.85 * 3350e9;
  CHECK(ComputeModel(p).op_time(a).seconds() == Approx(1e12 / (0.75 * 794.5e12) + 4e9 / bw).epsilon(1e-6));
}

TEST_CASE("compute model: materialised attention's products are batched GEMMs timed by shape", "[compute]") {
  // Megatron 2021's baddbmm/bmm: QKᵀ (s × s outputs, K = head_dim) and A·V (s × head_dim outputs, K = s),
  // each timed as the GEMM it is, plus the unfused passes; attention_efficiency (flash) plays no part.
  ComputeParams p = ComputeParams::defaults(a100(), DType::fp16);
  p.sm_count = 108;
  const GemmDims qk{2048, 2048, 96, 24}, av{2048, 96, 2048, 24};
  OpCost a{"attention_core", OpClass::attention, 2 * qk.flops(), 0, qk};
  a.score_products = 1;
  a.value_products = 1;
  a.unfused_bytes = 1e9;
  const ComputeModel m(p);
  const double bw = 0.85 * 2039e9;
  const double expect = m.gemm_seconds(qk) + m.gemm_seconds(av) + 1e9 / bw + 2e-6;
  CHECK(m.op_time(a).seconds() == Approx(expect).epsilon(1e-9));
  p.attention_efficiency = 0.1;
  CHECK(ComputeModel(p).op_time(a).seconds() == Approx(expect).epsilon(1e-9));
  // Backward: dP (scores' shape) and dV, dQ, dK (values' shape).
  a.value_products = 3;
  CHECK(m.op_time(a).seconds() == Approx(expect + 2 * m.gemm_seconds(av)).epsilon(1e-9));
  // The QKᵀ product with K = 96 walks two 64-element K steps (K padded to 128): no faster than K = 128.
  CHECK(m.gemm_seconds(qk) == Approx(m.gemm_seconds(GemmDims{2048, 2048, 128, 24})).epsilon(1e-12));
}

TEST_CASE("compute model: fp8_gemm_factor slows fp8 GEMMs only, in proportion", "[compute]") {
  ComputeParams p8 = loop_only(DType::fp8), p16 = loop_only(DType::bf16);
  const GemmDims d{4096, 4096, 4096, 1};
  const double t8 = ComputeModel(p8).gemm_seconds(d), t16 = ComputeModel(p16).gemm_seconds(d);
  p8.fp8_gemm_factor = 0.5;
  p16.fp8_gemm_factor = 0.5;
  CHECK(ComputeModel(p8).gemm_seconds(d) == Approx(2 * t8).epsilon(1e-9));
  CHECK(ComputeModel(p16).gemm_seconds(d) == Approx(t16).epsilon(1e-12));
}

TEST_CASE("MAMF of a GPU without its own row: the row of its die, scaled by the dense peaks", "[compute]") {
  // An H100 PCIe (756 dense BF16 TFLOP/s, 1,513 FP8) reads the H100 SXM's measured MAMF (989, 1,979) scaled.
  const GpuSpec pcie = *find_gpu_model("H100-PCIe");
  CHECK(mamf_measured_on("H100-PCIe") == "H100-SXM-80GB");
  CHECK(mamf_for_gpu(pcie, DType::bf16) == Approx(794.5 * 756.0 / 989.0));
  CHECK(mamf_for_gpu(pcie, DType::fp8) == Approx(1453.4 * 1513.0 / 1979.0));
  CHECK(ComputeParams::defaults(pcie, DType::bf16).matmul.value() == Approx(794.5e12 * 756.0 / 989.0));
  // Equal peaks change nothing: H200 is the H100 SXM's die at the same rated clock.
  const GpuSpec h200 = *find_gpu_model("H200-SXM-141GB");
  CHECK(mamf_for_gpu(h200, DType::bf16) == 794.5);
  CHECK(mamf_for_gpu(h200, DType::fp8) == 1453.4);
  // A GPU measured itself keeps its row: GB200 (mamf-finder on a GB200, not the B200's scaled by 2500/2250).
  CHECK(mamf_measured_on("GB200") == "GB200");
  CHECK(mamf_for_gpu(*find_gpu_model("GB200"), DType::bf16) == 1822.0);
  CHECK(mamf_for_gpu(*find_gpu_model("GB200"), DType::fp8) == 3615.6);
  CHECK(mamf_for_gpu(*find_gpu_model("B200"), DType::bf16) == 1745.0);
  // GB300 has no row: the B300's (Blackwell Ultra, 2,250 dense BF16) scaled to its 2,500.
  CHECK(mamf_measured_on("GB300") == "B300");
  CHECK(mamf_for_gpu(*find_gpu_model("B300"), DType::bf16) == 1769.0);
  CHECK(mamf_for_gpu(*find_gpu_model("GB300"), DType::bf16) == Approx(1769.0 * 2500.0 / 2250.0));
  CHECK(mamf_for_gpu(*find_gpu_model("GB300"), DType::fp8) == Approx(3353.3 * 5000.0 / 4500.0));
  // A GPU the catalog does not hold keeps the table's row unscaled; one the table does not hold has none.
  GpuSpec renamed = *find_gpu_model("B200");
  renamed.model = "GH200-custom";
  CHECK(mamf_for_gpu(renamed, DType::bf16) == 828.6);
  renamed.model = "MysteryGPU";
  CHECK(mamf_for_gpu(renamed, DType::bf16) == 0);
}

TEST_CASE("softmax exponentials per tensor FLOP: 16 MUFU.EX2 per SM-clock, 32 on Blackwell Ultra", "[compute]") {
  CHECK(softmax_exps_per_tensor_flop("A100-SXM-80GB") == 1.0 / 128);
  CHECK(softmax_exps_per_tensor_flop("H100-SXM-80GB") == 1.0 / 256);
  CHECK(softmax_exps_per_tensor_flop("H200-SXM") == 1.0 / 256);
  CHECK(softmax_exps_per_tensor_flop("B200") == 1.0 / 512);
  CHECK(softmax_exps_per_tensor_flop("GB200") == 1.0 / 512);
  CHECK(softmax_exps_per_tensor_flop("B300") == 1.0 / 256);
  CHECK(softmax_exps_per_tensor_flop("GB300") == 1.0 / 256);
  CHECK(softmax_exps_per_tensor_flop("RTX-4090") == 0);  // not charged
  const ComputeParams p = ComputeParams::defaults(h100(), DType::fp8);
  CHECK(p.softmax_exp_rate.value() == Approx(794.5e12 / 256));  // bf16 MAMF: attention's rate and clock
}

TEST_CASE("compute model: a flash kernel's softmax adds exps / exp rate to its products, at the sustained clock",
          "[compute]") {
  ComputeParams p = ComputeParams::defaults(h100(), DType::bf16);
  p.launch_overhead = Time::zero();
  p.sustained_factor = 0.8;
  p.attention_efficiency = 0.6;
  OpCost a{"attention_core", OpClass::attention, 1e12, 0};
  a.exps = 1e12 / (4 * 128);  // one per score of head_dim 128
  const double products = 1e12 / (0.6 * 0.8 * 794.5e12);
  const double softmax = a.exps / (0.8 * 794.5e12 / 256);
  // Off by default (the shipped profiles are fitted without it): the products alone.
  CHECK_FALSE(p.softmax_exp_cost);
  CHECK(ComputeModel(p).op_time(a).seconds() == Approx(products).epsilon(1e-9));
  ComputeOverrides on;
  on.softmax_exp_cost = true;
  p = p.with(on);
  CHECK(ComputeModel(p).op_time(a).seconds() == Approx(products + softmax).epsilon(1e-9));
  // At head_dim 128 on Hopper the SFUs take half the products' time at the same rate and efficiency 1.
  CHECK(softmax == Approx(0.5 * 1e12 / (0.8 * 794.5e12)).epsilon(1e-9));
  // Blackwell Ultra doubles the SFU rate over Blackwell at the same tensor rate: half the softmax time.
  ComputeParams b200 = p, b300 = p;
  b200.softmax_exp_rate = p.attention_matmul * softmax_exps_per_tensor_flop("B200");
  b300.softmax_exp_rate = p.attention_matmul * softmax_exps_per_tensor_flop("B300");
  const double t200 = ComputeModel(b200).op_time(a).seconds() - products;
  const double t300 = ComputeModel(b300).op_time(a).seconds() - products;
  CHECK(t200 == Approx(2 * t300).epsilon(1e-9));
  // Without a known SFU rate nothing is added.
  p.softmax_exp_rate = FlopRate{};
  CHECK(ComputeModel(p).op_time(a).seconds() == Approx(products).epsilon(1e-9));
}
