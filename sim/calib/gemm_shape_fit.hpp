#pragma once
// `plansim calibrate` on measured GEMMs (plansim-hw bench gemm): fits the simulator's own GEMM shape model
// (compute/compute_model.hpp: tiles, waves, K steps, per-tile epilogue, stream-K; anchored on MAMF) to
// the measured shapes of one dtype on one GPU, instead of a curve over FLOPs that the simulator never reads.
//
//   anchor shape:       the measured shape with the highest FLOP/s (where the model is anchored, as the
//                       mamf-finder's "Maximum Achievable Matmul FLOPS" names its best shape);
//   matmul_tflops:      the model's rate at that shape, fitted (not the best measurement itself, which the
//                       noise of many shapes biases upward);
//   gemm_tile_latency:  each tile's fixed cost besides writing its output.
// Both by least squares on ln(predicted / measured time) over the rows, the predicted time being what the
// simulator charges a GEMM op (the shape model's time + the launch overhead): the tile latency bounded to
// [0, kMaxTileLatency] by a log grid then golden-section refinement, the rate for each latency by
// rescaling until the mean log error vanishes (deterministic).
// Every row is then predicted in sample and leave-one-out (the fit redone without it, anchor included),
// so the table shows whether the shape model generalises over shapes on that GPU or only fits them.
#include <string>
#include <vector>

#include "sim/calib/measurements.hpp"
#include "sim/core/units.hpp"
#include "sim/model/transformer.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim::calib {

inline constexpr double kMaxTileLatencySeconds = 20e-6;

struct GemmShapeRow {
  GemmDims dims;
  double measured_s = 0;
  double predicted_s = 0;      // in sample
  double loo_predicted_s = 0;  // the fit without this row
  SourcePos pos;
};

struct GemmShapeFit {
  std::string dtype;
  std::string gpu;                 // the catalog GPU whose model was fitted
  GemmDims anchor;                 // the best measured shape
  double anchor_flops_per_s = 0;   // the model's (fitted) rate there: matmul_tflops
  Time tile_latency = Time::zero();
  std::vector<GemmShapeRow> rows;  // in the order measured
  // Over the rows: mean |error| (%), and the mean signed error (%) (error = predicted / measured time − 1).
  double mape_pct = 0, bias_pct = 0, loo_mape_pct = 0, loo_bias_pct = 0, loo_max_pct = 0;
};

// Rows without their M, N, K (bench JSON from before they were written) cannot be fitted: ConfigError at
// the first such row. Needs at least two shapes (one to anchor, one to check). `samples` are one dtype's.
GemmShapeFit fit_gemm_shape_model(const GpuSpec& gpu, const std::vector<const GemmSample*>& samples);

// The per-shape table (measured vs model, in sample and leave-one-out), for people.
std::string format_gemm_shape_fit(const GemmShapeFit& f);

}  // namespace plansim::calib
