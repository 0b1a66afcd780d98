#include "sim/calib/calibrate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

#include "sim/calib/profile.hpp"

namespace plansim::calib {
namespace {

template <class Sample>
LinearFit fit_group(const std::vector<const Sample*>& samples, const std::vector<FitPoint>& points,
                    const std::string& what) {
  try {
    return fit_latency_bandwidth(points);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(samples.front()->pos, fmt::format("cannot calibrate {}: {}", what, e.what()));
  }
}

}  // namespace

Profile calibrate(const Measurements& m, const GpuSpec* gpu) {
  Profile p;
  p.device = m.device;
  p.sources = m.sources;
  if (gpu != nullptr) p.gpu = gpu->model;

  std::map<std::tuple<std::string, std::string, int>, std::vector<const CollectiveSample*>> coll;
  for (const auto& s : m.collectives) coll[{s.op, s.algorithm, s.nranks}].push_back(&s);
  for (const auto& [key, samples] : coll) {
    std::vector<FitPoint> pts;
    for (const auto* s : samples) pts.push_back({s->size_bytes * s->busbw_factor, s->time_s});
    const auto& [op, algo, n] = key;
    CollectiveFit f{op, algo, n, 0, 0,
                    fit_group(samples, pts, fmt::format("{} ({} ranks, algorithm {})", op, n, algo))};
    f.latency_s = f.fit.a;
    f.bus_bandwidth_Bps = 1.0 / f.fit.b;
    p.collectives.push_back(f);
  }

  std::map<std::string, std::vector<const GemmSample*>> gemm;
  for (const auto& s : m.gemms) gemm[s.dtype].push_back(&s);
  for (const auto& [dtype, samples] : gemm) {
    std::vector<FitPoint> pts;
    for (const auto* s : samples) pts.push_back({s->flops, s->time_s});
    GemmFit g;
    g.dtype = dtype;
    g.fit = fit_group(samples, pts, fmt::format("the {} GEMM efficiency", dtype));
    g.max_rate_flops = 1.0 / g.fit.b;
    g.half_saturation_flops = g.fit.a * g.max_rate_flops;
    g.peak_flops = samples.front()->peak_flops;
    for (const auto* s : samples)
      if (s->peak_flops != g.peak_flops)
        throw ConfigError(s->pos, fmt::format("{} GEMM rows disagree on the peak ({} vs {} FLOP/s): one device per "
                                              "profile",
                                              dtype, s->peak_flops, g.peak_flops));
    g.max_efficiency = g.peak_flops > 0 ? g.max_rate_flops / g.peak_flops : 0;
    p.gemms.push_back(g);
    const bool shaped = std::all_of(samples.begin(), samples.end(), [](const GemmSample* s) { return s->m > 0; });
    if (gpu != nullptr && shaped && samples.size() >= 2) p.gemm_shapes.push_back(fit_gemm_shape_model(*gpu, samples));
  }

  if (!m.hbm.empty()) {
    std::vector<const HbmSample*> samples;
    std::vector<FitPoint> pts;
    for (const auto& s : m.hbm) {
      samples.push_back(&s);
      pts.push_back({s.bytes_moved, s.time_s});
    }
    HbmFit h;
    h.fit = fit_group(samples, pts, "the HBM bandwidth");
    h.latency_s = h.fit.a;
    h.bandwidth_Bps = 1.0 / h.fit.b;
    p.hbm.push_back(h);
    if (gpu != nullptr && gpu->hbm_bandwidth.value() > 0)
      p.hbm_efficiency = std::min(1.0, h.bandwidth_Bps / gpu->hbm_bandwidth.value());
  }
  if (p.collectives.empty() && p.gemms.empty() && p.hbm.empty())
    throw ConfigError(SourcePos{m.sources.empty() ? std::string("-") : m.sources.front(), 0, 0},
                      "no benchmark rows to calibrate from");
  return p;
}

double gemm_efficiency(const GemmFit& g, double flops) {
  return g.max_efficiency * flops / (flops + g.half_saturation_flops);
}

std::string profile_yaml(const Profile& p, const std::vector<std::string>& applies_to) {
  std::string y;
  y += "# plansim calibration profile (README \"Calibration profiles\"), written by `plansim calibrate` from\n";
  y += "# plansim-hw bench JSON. `compute:` is what the simulator reads; `measured:` the fits behind it (keys:\n";
  y += "# hw/README.md; relative-residual weighted least squares with Huber reweighting, sim/calib/linear_fit.hpp).\n";
  y += fmt::format("plansim_profile: {}\n", kProfileFormatVersion);
  y += fmt::format("name: {}\n", yaml_quoted(p.device + " (bench)"));
  std::vector<std::string> targets = applies_to;
  if (targets.empty() && !p.gpu.empty()) targets.push_back(p.gpu);
  if (!targets.empty()) {
    y += "applies_to: [";
    for (size_t i = 0; i < targets.size(); ++i) y += (i ? ", " : "") + yaml_quoted(targets[i]);
    y += "]\n";
  }
  y += "source:\n";
  y += fmt::format("  summary: {}\n", yaml_quoted("plansim-hw bench on " + p.device));
  y += "  data:\n";
  for (const auto& s : p.sources) y += fmt::format("    - {}\n", yaml_quoted(s));
  y += "compute:";
  std::string compute;
  const GemmShapeFit* shape = nullptr;  // the training dtypes' GEMM model: bf16, else fp16
  for (const char* dtype : {"bf16", "fp16"})
    for (const auto& f : p.gemm_shapes)
      if (shape == nullptr && f.dtype == dtype) shape = &f;
  if (shape != nullptr) {
    compute += fmt::format("\n  matmul_tflops: {:.6g}  # the shape model's fitted rate at mamf_shape, the best measured {} "
                           "shape",
                           shape->anchor_flops_per_s / 1e12, shape->dtype);
    compute += fmt::format("\n  mamf_shape: [{}, {}, {}]", shape->anchor.m, shape->anchor.n, shape->anchor.k);
    compute += fmt::format("\n  gemm_tile_latency: \"{:.4g} us\"", shape->tile_latency.seconds() * 1e6);
  } else {
    for (const auto& g : p.gemms)  // the large-GEMM rate of the training dtypes (MAMF, README "Definitions")
      if (g.dtype == "bf16") compute += fmt::format("\n  matmul_tflops: {:.6g}", g.max_rate_flops / 1e12);
  }
  if (p.hbm_efficiency) compute += fmt::format("\n  hbm_efficiency: {:.4f}", *p.hbm_efficiency);
  y += compute.empty() ? " {}\n" : compute + "\n";
  y += "measured:\n";
  y += "  version: 1\n";
  y += fmt::format("  device: {}\n", yaml_quoted(p.device));
  y += "  sources:\n";
  for (const auto& s : p.sources) y += fmt::format("    - {}\n", yaml_quoted(s));
  auto fit_quality = [](const LinearFit& f) {
    return fmt::format("      points: {}\n      median_rel_residual: {:.4f}\n      max_rel_residual: {:.4f}\n", f.points,
                       f.median_abs_rel_residual, f.max_abs_rel_residual);
  };
  y += p.collectives.empty() ? "  collectives: []\n" : "  collectives:  # t(S) = latency + S * busbw_factor / bus_bandwidth\n";
  for (const auto& c : p.collectives) {
    y += fmt::format("    - op: {}\n      algorithm: {}\n      nranks: {}\n", c.op, yaml_quoted(c.algorithm), c.nranks);
    y += fmt::format("      latency: \"{:.6g} us\"\n      bus_bandwidth: \"{:.6g} GB/s\"\n", c.latency_s * 1e6,
                     c.bus_bandwidth_Bps / 1e9);
    y += fit_quality(c.fit);
  }
  y += p.gemms.empty() ? "  gemm: []\n" : "  gemm:  # efficiency(F) = max_efficiency * F / (F + half_saturation)\n";
  for (const auto& g : p.gemms) {
    y += fmt::format("    - dtype: {}\n", g.dtype);
    if (g.peak_flops > 0) y += fmt::format("      peak: \"{:.6g} TFLOP/s\"\n", g.peak_flops / 1e12);
    y += fmt::format("      max_rate: \"{:.6g} TFLOP/s\"\n", g.max_rate_flops / 1e12);
    if (g.peak_flops > 0) y += fmt::format("      max_efficiency: {:.4f}\n", g.max_efficiency);
    y += fmt::format("      half_saturation: \"{:.6g} GFLOP\"\n", g.half_saturation_flops / 1e9);
    y += fit_quality(g.fit);
  }
  y += p.gemm_shapes.empty() ? "  gemm_shape_model: []\n"
                             : "  gemm_shape_model:  # compute/compute_model.hpp anchored on the best shape; errors = model / measured time - 1\n";
  for (const auto& f : p.gemm_shapes) {
    y += fmt::format("    - dtype: {}\n      gpu: {}\n      matmul_tflops: {:.6g}\n      mamf_shape: [{}, {}, {}]\n", f.dtype,
                     yaml_quoted(f.gpu), f.anchor_flops_per_s / 1e12, f.anchor.m, f.anchor.n, f.anchor.k);
    y += fmt::format("      gemm_tile_latency: \"{:.4g} us\"\n      shapes: {}\n", f.tile_latency.seconds() * 1e6, f.rows.size());
    y += fmt::format("      in_sample: {{mape_pct: {:.2f}, bias_pct: {:.2f}}}\n", f.mape_pct, f.bias_pct);
    y += fmt::format("      leave_one_out: {{mape_pct: {:.2f}, bias_pct: {:.2f}, max_pct: {:.2f}}}\n", f.loo_mape_pct,
                     f.loo_bias_pct, f.loo_max_pct);
  }
  if (p.hbm.empty()) y += "  hbm: null\n";
  for (const auto& h : p.hbm) {
    y += "  hbm:  # t = latency + bytes_moved / bandwidth (bytes_moved = read + write)\n";
    y += fmt::format("      latency: \"{:.6g} us\"\n      bandwidth: \"{:.6g} GB/s\"\n", h.latency_s * 1e6,
                     h.bandwidth_Bps / 1e9);
    y += fit_quality(h.fit);
  }
  return y;
}

}  // namespace plansim::calib
