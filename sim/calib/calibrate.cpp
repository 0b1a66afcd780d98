#include "sim/calib/calibrate.hpp"

#include <fmt/format.h>

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

Profile calibrate(const Measurements& m) {
  Profile p;
  p.device = m.device;
  p.sources = m.sources;

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
  if (!applies_to.empty()) {
    y += "applies_to: [";
    for (size_t i = 0; i < applies_to.size(); ++i) y += (i ? ", " : "") + yaml_quoted(applies_to[i]);
    y += "]\n";
  }
  y += "source:\n";
  y += fmt::format("  summary: {}\n", yaml_quoted("plansim-hw bench on " + p.device));
  y += "  data:\n";
  for (const auto& s : p.sources) y += fmt::format("    - {}\n", yaml_quoted(s));
  y += "compute:";
  std::string compute;
  for (const auto& g : p.gemms)  // the large-GEMM rate of the training dtypes (MAMF, README "Definitions")
    if (g.dtype == "bf16") compute += fmt::format("\n  matmul_tflops: {:.6g}", g.max_rate_flops / 1e12);
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
