#pragma once
// Roofline time of one op on one GPU: max(FLOPs / achievable rate, HBM bytes / achievable bandwidth)
// + a kernel launch overhead.
//   GEMM rate      = MAMF · F / (F + F_half): the best measured matmul rate (Stas Bekman's
//                    mamf-finder "Maximum Achievable Matmul FLOPS", hardware_constants.yaml), lower for
//                    small GEMMs (F = the GEMM's FLOPs; F_half = gemm_half_flops reaches half).
//   attention rate = attention_efficiency · MAMF (flash attention).
//   memory-bound   = hbm_efficiency · HBM bandwidth.
// Defaults (ComputeParams::defaults): MAMF bf16/fp16 A100-SXM 271.2, A100-PCIe 252.9, H100/H200 794.5,
// GH200 828.6, B200 1745 TFLOP/s; fp8 H100/H200 1453.4, B200 3432.5; other GPUs/dtypes 0.8 × peak.
// gemm_half_flops 2e9, attention_efficiency 0.75, hbm_efficiency 0.85, launch_overhead 2 us,
// comm_slowdown 0.1 (compute runs 10 % slower while a communication kernel shares the SMs).
// Every parameter can be set in the scenario's `compute:` section (calibration).
#include "sim/core/units.hpp"
#include "sim/model/transformer.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim {

struct ComputeParams {
  FlopRate matmul;                 // MAMF for the model's dtype
  double gemm_half_flops = 2e9;
  double attention_efficiency = 0.75;
  double hbm_efficiency = 0.85;
  Rate hbm;
  Time launch_overhead = Time::us(2);
  double comm_slowdown = 0.1;

  static ComputeParams defaults(const GpuSpec& gpu, DType dtype);
  [[nodiscard]] ComputeParams with(const ComputeOverrides& o) const;
};

// Best measured matmul TFLOP/s for a GPU model name and dtype (0 when not in the table).
double mamf_tflops(const std::string& gpu_model, DType dtype);

class ComputeModel {
 public:
  explicit ComputeModel(ComputeParams p) : p_(p) {}
  [[nodiscard]] Time op_time(const OpCost& op) const;
  [[nodiscard]] Time ops_time(const std::vector<OpCost>& ops) const;
  [[nodiscard]] const ComputeParams& params() const { return p_; }

 private:
  ComputeParams p_;
};

}  // namespace plansim
