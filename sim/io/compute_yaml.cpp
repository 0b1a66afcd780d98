// The `compute:` keys, shared by scenarios and calibration profiles (io/compute_yaml.hpp).
#include "sim/io/compute_yaml.hpp"

#include <array>

namespace plansim {

using io::MapReader;
using io::YamlFile;

ComputeOverrides read_compute(const YamlFile& f, const YAML::Node& n) {
  MapReader m(f, n, "compute");
  ComputeOverrides c;
  // A fraction in (0, max].
  auto fraction = [&](const std::string& key, double max) {
    return m.real(key, {0, max, true});
  };
  if (m.has("matmul_tflops")) c.matmul_tflops = m.real("matmul_tflops", {0, 1e6, true});  // ≤ 1 EFLOP/s
  if (m.has("mamf_shape")) {
    YAML::Node ms = m.get("mamf_shape");
    std::array<double, 3> shape{};
    if (!ms.IsSequence() || ms.size() != 3) m.fail(ms, "'mamf_shape' must list M, N, K, e.g. [2048, 2048, 13312]");
    for (size_t i = 0; i < 3; ++i) {
      shape[i] = io::scalar_real(f, ms[i], "mamf_shape", {1, 1e7});
    }
    c.mamf_shape = shape;
  }
  if (m.has("sm_count")) c.sm_count = m.positive_int("sm_count", 100000);
  if (m.has("gemm_tile_k_bytes")) c.gemm_tile_k_bytes = m.real("gemm_tile_k_bytes", {0, 1e6, true});
  if (m.has("gemm_tile_latency")) c.gemm_tile_latency = m.time("gemm_tile_latency");
  if (m.has("gemm_feed_ratio")) c.gemm_feed_ratio = m.real("gemm_feed_ratio", {0, 100, true});
  if (m.has("sustained_factor")) c.sustained_factor = fraction("sustained_factor", 1);
  if (m.has("fp8_gemm_factor")) c.fp8_gemm_factor = fraction("fp8_gemm_factor", 1);
  if (m.has("grouped_gemm_efficiency")) c.grouped_gemm_efficiency = fraction("grouped_gemm_efficiency", 1);
  if (m.has("moe_load_imbalance")) {
    c.moe_load_imbalance = m.real("moe_load_imbalance", {1, 1000});  // busiest rank / mean
  }
  if (m.has("attention_efficiency")) c.attention_efficiency = m.real("attention_efficiency", {0, 10, true});
  if (m.has("flash2_attention_efficiency")) {
    c.flash2_attention_efficiency = m.real("flash2_attention_efficiency", {0, 10, true});
  }
  if (m.has("alibi_attention_efficiency")) {
    c.alibi_attention_efficiency = m.real("alibi_attention_efficiency", {0, 10, true});
  }
  if (m.has("hbm_efficiency")) c.hbm_efficiency = m.real("hbm_efficiency", {0, 1, true});
  if (m.has("launch_overhead")) c.launch_overhead = m.time("launch_overhead");
  if (m.has("expert_launch_overhead")) c.expert_launch_overhead = m.time("expert_launch_overhead");
  if (m.has("comm_slowdown")) c.comm_slowdown = m.real("comm_slowdown", {0, 100});  // 0.1 = 10 % slower
  if (m.has("softmax_exp_cost")) c.softmax_exp_cost = m.optional<bool>("softmax_exp_cost", false);
  m.finish();
  return c;
}

}  // namespace plansim
