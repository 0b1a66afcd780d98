#pragma once
// `plansim calibrate`: fits the simulator's model parameters to measured microbenchmarks.
//
//   collectives (per op, algorithm, rank count):  t(S) = α + S·f/B      (f = nccl-tests busbw factor)
//       so B is the bus bandwidth nccl-tests reports as busbw at large sizes, and α the per-op latency.
//   GEMM (per dtype):  eff(F) = e_max·F/(F + F_half)  (achieved/peak vs FLOPs). Equivalently the time is
//       linear, t(F) = F/R + t0 with R = e_max·peak and F_half = t0·R, so it uses the same fit as above.
//   HBM:  t = α + bytes_moved/B.
// Every fit is fit_latency_bandwidth() (linear_fit.hpp: relative-residual weighted least squares with Huber
// reweighting). The profile is YAML with unit strings the io/ parsers read back (keys: hw/README.md).
#include <string>
#include <vector>

#include <optional>

#include "sim/calib/gemm_shape_fit.hpp"
#include "sim/calib/linear_fit.hpp"
#include "sim/calib/measurements.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim::calib {

struct CollectiveFit {
  std::string op, algorithm;
  int nranks = 0;
  double latency_s = 0;
  double bus_bandwidth_Bps = 0;
  LinearFit fit;
};

struct GemmFit {
  std::string dtype;
  double peak_flops = 0;         // 0 = unknown (then max_efficiency is 0 too)
  double max_rate_flops = 0;     // R = e_max·peak
  double max_efficiency = 0;     // e_max
  double half_saturation_flops = 0;  // F_half: the FLOPs at which eff = e_max / 2
  LinearFit fit;
};

struct HbmFit {
  double latency_s = 0;
  double bandwidth_Bps = 0;
  LinearFit fit;
};

struct Profile {
  std::string device;
  std::vector<std::string> sources;
  std::vector<CollectiveFit> collectives;  // sorted by (op, algorithm, nranks)
  std::vector<GemmFit> gemms;              // sorted by dtype
  std::vector<HbmFit> hbm;                 // zero or one entry
  // With the GPU known (its catalog model): the simulator's GEMM shape model fitted per dtype whose rows
  // carry their shapes (gemm_shape_fit.hpp), and the HBM fit's bandwidth over the GPU's rated bandwidth.
  std::string gpu;
  std::vector<GemmShapeFit> gemm_shapes;   // sorted by dtype
  std::optional<double> hbm_efficiency;
};

// Groups and fits. A group that cannot be fitted (one size only, times that do not grow) throws
// ConfigError at the position of its first sample. Throws ConfigError when there is nothing to fit.
// `gpu` (may be null): the GPU measured, for the shape-model and HBM-efficiency fits.
Profile calibrate(const Measurements& m, const GpuSpec* gpu = nullptr);

// eff(F) of a fitted curve.
double gemm_efficiency(const GemmFit& g, double flops);

// The calibration profile (README "Calibration profiles"): `compute:` for the simulator, the fits under
// `measured:`. `applies_to`: the GPU model prefixes it is for (empty: the measured GPU's model when known,
// else any GPU). `compute:` holds, from a bf16 (else fp16) shape-model fit, matmul_tflops + mamf_shape +
// gemm_tile_latency (without one, matmul_tflops = the bf16 curve's max_rate), and hbm_efficiency when known.
std::string profile_yaml(const Profile& p, const std::vector<std::string>& applies_to = {});

}  // namespace plansim::calib
