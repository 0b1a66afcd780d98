#include "sim/compute/compute_model.hpp"

#include <algorithm>

namespace plansim {

double mamf_tflops(const std::string& model, DType dtype) {
  auto has = [&](const char* s) { return model.find(s) != std::string::npos; };
  if (dtype == DType::bf16 || dtype == DType::fp16) {
    if (has("GH200")) return 828.6;
    if (has("A100")) return has("PCIe") ? 252.9 : 271.2;
    if (has("H100") || has("H200")) return 794.5;
    if (has("B300")) return 1769.0;
    if (has("B200")) return 1745.0;
  } else if (dtype == DType::fp8) {
    if (has("GH200")) return 1535.0;
    if (has("H100") || has("H200")) return 1453.4;
    if (has("B200")) return 3432.5;
  }
  return 0;
}

ComputeParams ComputeParams::defaults(const GpuSpec& gpu, DType dtype) {
  ComputeParams p;
  const double table = mamf_tflops(gpu.model, dtype);
  p.matmul = table > 0 ? TFLOPs_per_s(table) : gpu.peak(dtype) * 0.8;
  p.hbm = gpu.hbm_bandwidth;
  return p;
}

ComputeParams ComputeParams::with(const ComputeOverrides& o) const {
  ComputeParams p = *this;
  if (o.matmul_tflops) p.matmul = TFLOPs_per_s(*o.matmul_tflops);
  if (o.gemm_half_flops) p.gemm_half_flops = *o.gemm_half_flops;
  if (o.attention_efficiency) p.attention_efficiency = *o.attention_efficiency;
  if (o.hbm_efficiency) p.hbm_efficiency = *o.hbm_efficiency;
  if (o.launch_overhead) p.launch_overhead = *o.launch_overhead;
  if (o.comm_slowdown) p.comm_slowdown = *o.comm_slowdown;
  return p;
}

Time ComputeModel::op_time(const OpCost& op) const {
  double flop_s = 0;
  if (op.flops > 0) {
    double rate = p_.matmul.value();
    if (op.cls == OpClass::gemm) rate *= op.flops / (op.flops + p_.gemm_half_flops);
    else if (op.cls == OpClass::attention) rate *= p_.attention_efficiency;
    flop_s = op.flops / rate;
  }
  const double mem_s = op.hbm_bytes / (p_.hbm.value() * p_.hbm_efficiency);
  return Time::from_seconds(std::max(flop_s, mem_s)) + p_.launch_overhead;
}

Time ComputeModel::ops_time(const std::vector<OpCost>& ops) const {
  Time t;
  for (const auto& o : ops) t += op_time(o);
  return t;
}

}  // namespace plansim
