#include "sim/compute/compute_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "sim/topo/gpu_catalog.hpp"

namespace plansim {

namespace {
bool has(const std::string& model, const char* s) { return model.find(s) != std::string::npos; }
}  // namespace

double mamf_tflops(const std::string& model, DType dtype) {
  if (dtype == DType::bf16 || dtype == DType::fp16) {
    if (has(model, "GH200")) return 828.6;
    if (has(model, "A100")) return has(model, "PCIe") ? 252.9 : 271.2;
    if (has(model, "H100") || has(model, "H200")) return 794.5;
    if (has(model, "B300")) return 1769.0;
    if (has(model, "GB200")) return 1822.0;
    if (has(model, "B200")) return 1745.0;
  } else if (dtype == DType::fp8) {
    if (has(model, "GH200")) return 1535.0;
    if (has(model, "H100") || has(model, "H200")) return 1453.4;
    if (has(model, "B300")) return 3353.3;
    if (has(model, "GB200")) return 3615.6;
    if (has(model, "B200")) return 3432.5;
  }
  return 0;
}

// The "Best Shape MxNxK" column of the same mamf-finder table (stas00/ml-engineering), per row above.
GemmDims mamf_best_shape(const std::string& model, DType dtype) {
  if (dtype == DType::bf16 || dtype == DType::fp16) {
    if (has(model, "GH200")) return {1024, 15360, 4096, 1};
    if (has(model, "A100")) return has(model, "PCIe") ? GemmDims{2048, 5120, 6144, 1} : GemmDims{1024, 10240, 5120, 1};
    if (has(model, "H100") || has(model, "H200")) return {2048, 2048, 13312, 1};
    if (has(model, "B300")) return {12288, 18432, 1024, 1};
    if (has(model, "GB200")) return {4096, 9728, 2048, 1};
    if (has(model, "B200")) return {1792, 16128, 3072, 1};
  } else if (dtype == DType::fp8) {
    if (has(model, "GH200")) return {1024, 14336, 14336, 1};
    if (has(model, "H100") || has(model, "H200")) return {1280, 4096, 12032, 1};  // the H200 row, whose MAMF we use
    if (has(model, "B300")) return {3072, 6144, 7168, 1};
    if (has(model, "GB200")) return {19456, 5120, 1536, 1};
    if (has(model, "B200")) return {15360, 4096, 3072, 1};
  }
  return {8192, 8192, 8192, 1};
}

bool persistent_gemm_kernels(const std::string& model) {
  return has(model, "H100") || has(model, "H200") || has(model, "GH200") || has(model, "B200") || has(model, "B300");
}

double softmax_exps_per_tensor_flop(const std::string& model) {
  if (has(model, "B300")) return 32.0 / 8192;  // Blackwell Ultra, GB300 included: twice the SFU rate
  if (has(model, "B200")) return 16.0 / 8192;  // GB200 included
  if (has(model, "H100") || has(model, "H200") || has(model, "GH200")) return 16.0 / 4096;
  if (has(model, "A100")) return 16.0 / 2048;
  return 0;
}

std::string mamf_measured_on(const std::string& model) {
  if (has(model, "GH200")) return "";  // its own row, no catalog entry to scale from
  if (has(model, "B300")) return "B300";  // GB300 (no row of its own) reads it scaled by the peaks
  if (has(model, "A100")) return has(model, "PCIe") ? "A100-PCIe-80GB" : "A100-SXM-80GB";
  if (has(model, "H100") || has(model, "H200")) return "H100-SXM-80GB";
  if (has(model, "GB200")) return "GB200";
  if (has(model, "B200")) return "B200";
  return "";
}

double mamf_for_gpu(const GpuSpec& gpu, DType dtype) {
  const double table = mamf_tflops(gpu.model, dtype);
  if (table <= 0 || !gpu.supports(dtype)) return table;
  const std::optional<GpuSpec> measured = find_gpu_model(mamf_measured_on(gpu.model));
  if (!measured || !measured->supports(dtype)) return table;
  return table * (gpu.peak(dtype) / measured->peak(dtype));
}

ComputeParams ComputeParams::defaults(const GpuSpec& gpu, DType dtype) {
  ComputeParams p;
  const double table = mamf_for_gpu(gpu, dtype);
  p.matmul = table > 0 ? TFLOPs_per_s(table) : gpu.peak(dtype) * 0.8;
  const DType attention_dtype = dtype == DType::fp8 ? DType::bf16 : dtype;
  const double attention_table = mamf_for_gpu(gpu, attention_dtype);
  p.attention_matmul = attention_table > 0 ? TFLOPs_per_s(attention_table) : gpu.peak(attention_dtype) * 0.8;
  p.softmax_exp_rate = p.attention_matmul * softmax_exps_per_tensor_flop(gpu.model);
  p.mamf_shape = mamf_best_shape(gpu.model, dtype);
  p.sm_count = gpu.sm_count;
  p.epilogue_overlap = persistent_gemm_kernels(gpu.model);
  p.dtype = dtype;
  p.hbm = gpu.hbm_bandwidth;
  p.power_clock_factor = gpu.power_clock_factor();
  return p;
}

ComputeParams ComputeParams::for_scenario(const GpuSpec& gpu, const Scenario& s) {
  ComputeParams p = defaults(gpu, s.model.dtype).with(s.compute);
  if (s.training.attention == AttentionKernel::flash2 && p.flash2_attention_efficiency)
    p.attention_efficiency = *p.flash2_attention_efficiency;
  if (s.model.attention.alibi && !s.training.materialised_attention() && p.alibi_attention_efficiency)
    p.attention_efficiency = *p.alibi_attention_efficiency;
  return p;
}

ComputeParams ComputeParams::with(const ComputeOverrides& o) const {
  ComputeParams p = *this;
  if (o.matmul_tflops) {
    p.matmul = TFLOPs_per_s(*o.matmul_tflops);
    if (p.dtype != DType::fp8) p.attention_matmul = p.matmul;  // the same products' rate
  }
  if (o.mamf_shape) p.mamf_shape = GemmDims{(*o.mamf_shape)[0], (*o.mamf_shape)[1], (*o.mamf_shape)[2], 1};
  if (o.sm_count) p.sm_count = *o.sm_count;
  if (o.gemm_tile_k_bytes) p.gemm_tile_k_bytes = *o.gemm_tile_k_bytes;
  if (o.gemm_tile_latency) p.gemm_tile_latency = *o.gemm_tile_latency;
  if (o.gemm_feed_ratio) p.gemm_feed_ratio = *o.gemm_feed_ratio;
  if (o.sustained_factor) p.sustained_factor = *o.sustained_factor;
  if (o.fp8_gemm_factor) p.fp8_gemm_factor = *o.fp8_gemm_factor;
  if (o.grouped_gemm_efficiency) p.grouped_gemm_efficiency = *o.grouped_gemm_efficiency;
  if (o.moe_load_imbalance) p.moe_load_imbalance = *o.moe_load_imbalance;
  if (o.attention_efficiency) p.attention_efficiency = *o.attention_efficiency;
  if (o.flash2_attention_efficiency) p.flash2_attention_efficiency = *o.flash2_attention_efficiency;
  if (o.alibi_attention_efficiency) p.alibi_attention_efficiency = *o.alibi_attention_efficiency;
  if (o.hbm_efficiency) p.hbm_efficiency = *o.hbm_efficiency;
  if (o.launch_overhead) p.launch_overhead = *o.launch_overhead;
  if (o.expert_launch_overhead) p.expert_launch_overhead = *o.expert_launch_overhead;
  if (o.comm_slowdown) p.comm_slowdown = *o.comm_slowdown;
  if (o.softmax_exp_cost) p.softmax_exp_cost = *o.softmax_exp_cost;
  return p;
}

namespace {

// One candidate tile's cost for a GEMM: waves · (fixed + k_steps · step_flops / (rate · tile_eff)).
struct TileCost {
  double waves = 0;       // ceil(tiles / SMs)
  double fixed_s = 0;     // per tile: epilogue + latency
  double loop_flops = 0;  // per tile: k_steps · 2·tm·tn·tk / tile efficiency (FLOPs at the SM rate)
  bool overlapped = false;  // the epilogue runs under the next tile's main loop (persistent kernels)
  [[nodiscard]] double seconds(double sm_rate) const {
    return waves * (overlapped ? std::max(fixed_s, loop_flops / sm_rate) : fixed_s + loop_flops / sm_rate);
  }
};

double intensity(double tm, double tn) { return tm * tn / (tm + tn); }  // FLOPs per operand byte, up to a constant

template <typename F>
void for_each_tile(const ComputeParams& p, const GemmDims& d, F&& f) {
  const double e = dtype_size(p.dtype).value();
  const double out_e = (p.dtype == DType::fp32 || p.dtype == DType::tf32) ? 4 : 2;  // fp8 GEMMs write bf16
  const double tk = std::max(1.0, std::floor(p.gemm_tile_k_bytes / e));
  const double sms = p.sm_count > 0 ? p.sm_count : 1;
  const double sm_hbm = p.hbm.value() * p.hbm_efficiency / sms;  // each SM's share when all write at once
  const double best = intensity(kGemmTiles[0][0], kGemmTiles[0][1]);
  const double k_steps = std::ceil(d.k / tk);
  for (const auto& t : kGemmTiles) {
    const double tm = t[0], tn = t[1];
    const double tiles = std::ceil(d.m / tm) * std::ceil(d.n / tn) * std::ceil(d.batch);
    const double eff = std::min(1.0, p.gemm_feed_ratio * intensity(tm, tn) / best);
    const double epilogue = p.gemm_tile_latency.seconds() + tm * tn * out_e / sm_hbm;
    const double step_flops = 2 * tm * tn * tk / eff;
    TileCost c;  // data-parallel: whole tiles, one per SM at a time
    c.overlapped = p.epilogue_overlap;
    c.waves = p.sm_count > 0 ? std::ceil(tiles / sms) : tiles;
    c.fixed_s = epilogue;
    c.loop_flops = k_steps * step_flops;
    f(c);
    if (p.sm_count <= 0 || tiles <= 0) continue;
    // Stream-K: the tiles' K steps dealt evenly to the SMs; each SM finishes ceil(tiles / SMs) tiles'
    // epilogues and fixes up one split tile (its fp32 partial written and read back).
    TileCost k;
    k.overlapped = p.epilogue_overlap;
    k.waves = 1;
    k.fixed_s = std::ceil(tiles / sms) * epilogue + 2 * tm * tn * 4 / sm_hbm;
    k.loop_flops = std::ceil(tiles * k_steps / sms) * step_flops;
    f(k);
  }
}

}  // namespace

ComputeModel::ComputeModel(ComputeParams p) : p_(p) {
  // Anchor: the per-SM main-loop rate R that makes the fastest tile time mamf_shape at MAMF. Each
  // tile's time is a_i + b_i / R, so min_i(a_i + b_i/R) = T holds at R = min_i b_i / (T − a_i) over
  // the tiles with a_i < T (a larger R would make that tile faster than T).
  const GemmDims& a = p_.mamf_shape;
  const double target = a.flops() / p_.matmul.value();
  double r = std::numeric_limits<double>::infinity();
  double no_fixed = std::numeric_limits<double>::infinity();
  for_each_tile(p_, a, [&](const TileCost& c) {
    const double fixed = c.waves * c.fixed_s, loop = c.waves * c.loop_flops;
    if (fixed < target) r = std::min(r, c.overlapped ? loop / target : loop / (target - fixed));
    no_fixed = std::min(no_fixed, loop / target);
  });
  // Fixed costs alone exceed the anchor's time (a calibration far off): drop them from the anchor.
  sm_rate_ = std::isfinite(r) ? r : no_fixed;
}

double ComputeModel::gemm_seconds_at(const GemmDims& d, double sm_rate) const {
  if (!(d.m > 0 && d.n > 0 && d.k > 0 && d.batch > 0)) return 0;
  double best = std::numeric_limits<double>::infinity();
  for_each_tile(p_, d, [&](const TileCost& c) { best = std::min(best, c.seconds(sm_rate)); });
  return best;
}

double ComputeModel::gemm_seconds(const GemmDims& d, double rate_scale) const {
  const double fp8 = p_.dtype == DType::fp8 ? p_.fp8_gemm_factor : 1.0;
  return gemm_seconds_at(d, sm_rate_ * flop_factor() * fp8 * rate_scale);
}

Time ComputeModel::op_time(const OpCost& op) const {
  if (op.cls == OpClass::host_copy) {  // a copy engine's transfer over the host link: no math, no HBM term
    const double rate = p_.host_link.value();
    return rate > 0 ? Time::from_seconds(op.host_link_bytes / rate) + p_.launch_overhead : Time::zero();
  }
  double flop_s = 0;
  const double work = op.executed_flops();
  if (work > 0) {
    const double sustained = p_.matmul.value() * flop_factor();
    if (op.cls == OpClass::gemm && op.dims.flops() > 0) {
      GemmDims d = op.dims;
      double scale = 1;
      if (op.expert.grouped) {
        scale = p_.grouped_gemm_efficiency;
        if (op.expert.dropless) (op.expert.tokens_in_k ? d.k : d.m) *= p_.moe_load_imbalance;
      }
      // The op is work / dims.flops() such products (attention-like repeats; 1 for a plain GEMM).
      flop_s = work / op.dims.flops() * gemm_seconds(d, scale);
    } else if (op.cls == OpClass::attention && op.score_products + op.value_products > 0) {
      // Materialised: cuBLAS batched GEMMs by shape at the attention dtype's rate (bf16 in an fp8 model).
      const double fp8 = p_.dtype == DType::fp8 ? p_.fp8_gemm_factor : 1.0;
      const double scale = p_.attention_matmul.value() / p_.matmul.value() / fp8;
      const GemmDims& sc = op.dims;
      flop_s = op.score_products * gemm_seconds(sc, scale) +
               op.value_products * gemm_seconds(GemmDims{sc.m, sc.k, sc.n, sc.batch}, scale);
    } else if (op.cls == OpClass::attention) {
      flop_s = work / (p_.attention_matmul.value() * flop_factor() * p_.attention_efficiency);
      if (p_.softmax_exp_cost && op.exps > 0 && p_.softmax_exp_rate.value() > 0)
        flop_s += op.exps / (p_.softmax_exp_rate.value() * flop_factor());
    } else {
      flop_s = work / sustained;
    }
  }
  const double hbm = p_.hbm.value() * p_.hbm_efficiency;
  const double mem_s = op.hbm_bytes / hbm;
  // fp8 quantisation kernels (OpCost::casts): memory-bound, each its own launch, not overlapped with the GEMM.
  const double casts_s = op.casts.bytes / hbm + op.casts.kernels * p_.launch_overhead.seconds();
  // Grouped expert GEMMs: the host's per-expert issue time after TE's token-count sync (ComputeParams).
  const double host_s = op.expert.grouped ? op.dims.batch * p_.expert_launch_overhead.seconds() : 0.0;
  return Time::from_seconds(std::max(flop_s, mem_s) + op.unfused_bytes / hbm + casts_s + host_s) +
         p_.launch_overhead;
}

Time ComputeModel::ops_time(const std::vector<OpCost>& ops) const {
  Time t;
  for (const auto& o : ops) t += op_time(o);
  return t;
}

}  // namespace plansim
