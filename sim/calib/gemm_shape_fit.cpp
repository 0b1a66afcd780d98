#include "sim/calib/gemm_shape_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/compute/compute_model.hpp"

namespace plansim::calib {
namespace {

struct Row {
  GemmDims dims;
  double time_s = 0;
};

// The fitted parameters: the main-loop rate at the anchor shape (matmul) and the per-tile latency.
struct Params {
  double matmul = 0;  // FLOP/s
  double tile_latency_s = 0;
};

// The best-measured shape of `rows` (skipping index `skip`): where the model is anchored.
size_t best_row(const std::vector<Row>& rows, size_t skip) {
  size_t best = rows.size();
  for (size_t i = 0; i < rows.size(); ++i)
    if (i != skip && (best == rows.size() || rows[i].dims.flops() / rows[i].time_s >
                                                  rows[best].dims.flops() / rows[best].time_s))
      best = i;
  return best;
}

ComputeModel model_of(const GpuSpec& gpu, DType dtype, const GemmDims& anchor, const Params& x) {
  ComputeParams p = ComputeParams::defaults(gpu, dtype);
  p.matmul = FlopRate(x.matmul);
  p.mamf_shape = anchor;
  p.gemm_tile_latency = Time::from_seconds(x.tile_latency_s);
  return ComputeModel(p);
}

// What the simulator charges one GEMM op of this shape: the shape model's time and a kernel launch
// (ComputeModel::op_time without the HBM roofline, which large GEMMs never reach).
double predicted(const ComputeModel& m, const GemmDims& d) {
  return m.gemm_seconds(d) + m.params().launch_overhead.seconds();
}

// Sum of ln²(predicted / measured) over the rows but `skip`, with the rate fitted for this tile latency:
// the time is nearly proportional to 1 / rate, so the rate is rescaled by the mean log error until the
// mean vanishes (a few rounds).
double log_error(const GpuSpec& gpu, DType dtype, const std::vector<Row>& rows, size_t skip, const GemmDims& anchor,
                 Params& x) {
  double sum = 0;
  for (int round = 0; round < 6; ++round) {
    const ComputeModel m = model_of(gpu, dtype, anchor, x);
    double mean = 0, sq = 0, n = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i == skip) continue;
      const double r = std::log(predicted(m, rows[i].dims) / rows[i].time_s);
      mean += r;
      sq += r * r;
      n += 1;
    }
    mean /= n;
    sum = sq;
    if (std::abs(mean) < 1e-6) break;
    x.matmul *= std::exp(mean);  // predicted too slow (mean > 0): a faster main loop
  }
  return sum;
}

// The tile latency in [0, kMaxTileLatencySeconds] (and the rate with it) minimising log_error: the best of
// a grid (0 and 48 log-spaced points from 1 ns), then golden-section search between its neighbours.
Params fit(const GpuSpec& gpu, DType dtype, const std::vector<Row>& rows, size_t skip, const GemmDims& anchor,
           double start_rate) {
  auto at = [&](double tl) {
    Params x{start_rate, tl};
    const double e = log_error(gpu, dtype, rows, skip, anchor, x);
    return std::pair{e, x};
  };
  std::vector<double> grid{0};
  for (int i = 0; i < 48; ++i) grid.push_back(1e-9 * std::pow(kMaxTileLatencySeconds / 1e-9, i / 47.0));
  size_t best = 0;
  auto best_fit = at(grid[0]);
  for (size_t i = 1; i < grid.size(); ++i)
    if (auto f = at(grid[i]); f.first < best_fit.first) best_fit = f, best = i;
  double lo = grid[best == 0 ? 0 : best - 1], hi = grid[std::min(best + 1, grid.size() - 1)];
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int it = 0; it < 40 && hi - lo > 1e-12; ++it) {
    const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (at(a).first <= at(b).first) hi = b;
    else lo = a;
  }
  auto mid = at((lo + hi) / 2);
  return mid.first <= best_fit.first ? mid.second : best_fit.second;
}

}  // namespace

GemmShapeFit fit_gemm_shape_model(const GpuSpec& gpu, const std::vector<const GemmSample*>& samples) {
  if (samples.empty()) throw std::invalid_argument("fit_gemm_shape_model: no samples");
  GemmShapeFit f;
  f.dtype = samples.front()->dtype;
  f.gpu = gpu.model;
  const std::optional<DType> dtype = dtype_from_string(f.dtype);
  if (!dtype) throw ConfigError(samples.front()->pos, fmt::format("unknown GEMM dtype '{}'", f.dtype));
  std::vector<Row> rows;
  for (const GemmSample* s : samples) {
    if (!(s->m > 0 && s->n > 0 && s->k > 0))
      throw ConfigError(s->pos, "a GEMM row without its shape (m, n, k): the shape model cannot be fitted to it");
    rows.push_back({GemmDims{s->m, s->n, s->k, 1}, s->time_s});
  }
  if (rows.size() < 2)
    throw ConfigError(samples.front()->pos,
                      fmt::format("one {} GEMM shape: the shape model needs two (one anchors MAMF, the others "
                                  "fit the tile latency)",
                                  f.dtype));
  const size_t none = rows.size();
  const GemmDims anchor = rows[best_row(rows, none)].dims;
  const double start_rate = anchor.flops() / rows[best_row(rows, none)].time_s;
  const Params x = fit(gpu, *dtype, rows, none, anchor, start_rate);
  const ComputeModel model = model_of(gpu, *dtype, anchor, x);
  f.tile_latency = Time::from_seconds(x.tile_latency_s);
  f.anchor = anchor;
  f.anchor_flops_per_s = x.matmul;
  double abs_sum = 0, sum = 0, loo_abs = 0, loo_sum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    GemmShapeRow r{rows[i].dims, rows[i].time_s, predicted(model, rows[i].dims), 0, samples[i]->pos};
    const size_t b = best_row(rows, i);
    const GemmDims a = rows[b].dims;
    r.loo_predicted_s = predicted(model_of(gpu, *dtype, a, fit(gpu, *dtype, rows, i, a, a.flops() / rows[b].time_s)),
                                  rows[i].dims);
    const double e = 100 * (r.predicted_s / r.measured_s - 1), le = 100 * (r.loo_predicted_s / r.measured_s - 1);
    abs_sum += std::abs(e);
    sum += e;
    loo_abs += std::abs(le);
    loo_sum += le;
    f.loo_max_pct = std::max(f.loo_max_pct, std::abs(le));
    f.rows.push_back(r);
  }
  const double n = static_cast<double>(rows.size());
  f.mape_pct = abs_sum / n;
  f.bias_pct = sum / n;
  f.loo_mape_pct = loo_abs / n;
  f.loo_bias_pct = loo_sum / n;
  return f;
}

std::string format_gemm_shape_fit(const GemmShapeFit& f) {
  std::string s = fmt::format(
      "GEMM shape model, {} on {}: matmul_tflops {:.1f} at {}x{}x{} (the best measured shape), "
      "gemm_tile_latency {:.3f} us (fitted)\n",
      f.dtype, f.gpu, f.anchor_flops_per_s / 1e12, f.anchor.m, f.anchor.n, f.anchor.k, f.tile_latency.seconds() * 1e6);
  s += "       M       N       K   measured TFLOP/s   model TFLOP/s   error %   leave-one-out %\n";
  for (const auto& r : f.rows) {
    const double flops = r.dims.flops();
    s += fmt::format("{:8} {:7} {:7} {:18.1f} {:15.1f} {:+9.1f} {:+17.1f}\n", r.dims.m, r.dims.n, r.dims.k,
                     flops / r.measured_s / 1e12, flops / r.predicted_s / 1e12, 100 * (r.predicted_s / r.measured_s - 1),
                     100 * (r.loo_predicted_s / r.measured_s - 1));
  }
  s += fmt::format("time error (model / measured - 1) over {} shapes: in sample mean |e| {:.1f} %, bias {:+.1f} %; "
                   "leave-one-out mean |e| {:.1f} %, bias {:+.1f} %, max {:.1f} %\n",
                   f.rows.size(), f.mape_pct, f.bias_pct, f.loo_mape_pct, f.loo_bias_pct, f.loo_max_pct);
  return s;
}

}  // namespace plansim::calib
