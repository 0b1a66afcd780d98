#include "sim/calib/nccl_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "sim/calib/profile.hpp"
#include "sim/coll/algorithm.hpp"
#include "sim/coll/measure.hpp"

namespace plansim::calib {
namespace {

struct Case {
  const CollectiveSample* s;
  CollOp op;
  std::string algo;
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void set_efficiency(NcclModelParams& p, const std::string& key, double e) {
  if (key == "network") p.network_efficiency = e;
  else if (key == "nvls") p.nvls_efficiency = e;
  else if (key == "pcie") p.pcie_efficiency = e;
  else p.nvlink_efficiency = e;
}

// Model time of every case with params `p` (extra latency excluded).
std::vector<double> model_times(const std::vector<Case>& cases, const Topology& topo, NcclModelParams p) {
  p.extra_latency_us = 0;
  std::vector<double> t;
  for (const auto& c : cases)
    t.push_back(measure_collective(topo, p, c.op, c.s->nranks, Bytes(c.s->size_bytes), c.algo).time.seconds());
  return t;
}

// The extra latency minimising sum(((t_model + x - t) / t)^2) over `use`, clamped at 0; and that sum.
std::pair<double, double> best_extra(const std::vector<Case>& cases, const std::vector<double>& model,
                                     const std::vector<bool>& use) {
  double num = 0, den = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!use[i]) continue;
    const double t = cases[i].s->time_s;
    num += (t - model[i]) / (t * t);
    den += 1.0 / (t * t);
  }
  const double x = den > 0 ? std::max(0.0, num / den) : 0.0;
  double sse = 0;
  for (size_t i = 0; i < cases.size(); ++i)
    if (use[i]) sse += std::pow((model[i] + x - cases[i].s->time_s) / cases[i].s->time_s, 2);
  return {x, sse};
}

struct GridPoint {
  double e;
  std::vector<double> model;
};

// Best (efficiency, extra latency) over the grid for the cases in `use`.
std::pair<double, double> search(const std::vector<GridPoint>& grid, const std::vector<Case>& cases,
                                 const std::vector<bool>& use) {
  double best_e = grid.front().e, best_x = 0, best = INFINITY;
  for (const auto& g : grid) {
    const auto [x, sse] = best_extra(cases, g.model, use);
    if (sse < best) best = sse, best_e = g.e, best_x = x;
  }
  return {best_e, best_x};
}

}  // namespace

NcclFit fit_nccl_model(const Measurements& m, const Topology& topo, const NcclModelParams& start) {
  if (m.collectives.empty())
    throw ConfigError(SourcePos{m.sources.empty() ? std::string("-") : m.sources.front(), 0, 0},
                      "no collective rows to fit the NCCL model to");
  const AlgorithmRegistry reg = make_default_registry();
  std::vector<Case> cases;
  for (const auto& s : m.collectives) {
    const auto op = coll_op_from_string(s.op);
    if (!op || *op == CollOp::send_recv)
      throw ConfigError(s.pos, fmt::format("cannot fit the NCCL model to op '{}'", s.op));
    std::string algo = lower(s.algorithm.empty() ? "auto" : s.algorithm);
    if (algo != "auto" && !reg.find(algo))
      throw ConfigError(s.pos, fmt::format("unknown algorithm '{}' (auto, {})", s.algorithm, fmt::join(reg.names(), ", ")));
    if (s.nranks < 2 || static_cast<size_t>(s.nranks) > topo.num_gpus())
      throw ConfigError(s.pos, fmt::format("{} ranks on topology '{}' of {} GPUs", s.nranks, topo.name(), topo.num_gpus()));
    if (!(s.time_s > 0)) throw ConfigError(s.pos, "a collective time must be positive");
    cases.push_back({&s, *op, algo});
  }
  // Which efficiency bounds the groups at their largest size.
  const Case& big = *std::max_element(cases.begin(), cases.end(),
                                      [](const Case& a, const Case& b) { return a.s->size_bytes < b.s->size_bytes; });
  std::vector<GpuId> group;
  for (int i = 0; i < big.s->nranks; ++i) group.push_back(GpuId::from(i));
  NcclFit f;
  if (distinct_hosts(topo, group) > 1) f.efficiency_key = "network";
  else if (measure_collective(topo, start, big.op, big.s->nranks, Bytes(big.s->size_bytes), big.algo).algorithm == "nvls")
    f.efficiency_key = "nvls";
  else f.efficiency_key = intra_hw_kind(topo, group) == HwKind::nvlink ? "nvlink" : "pcie";

  std::vector<GridPoint> grid;
  for (int k = 5; k <= 100; ++k) {
    NcclModelParams p = start;
    set_efficiency(p, f.efficiency_key, k / 100.0);
    grid.push_back({k / 100.0, model_times(cases, topo, p)});
  }
  const std::vector<bool> all(cases.size(), true);
  std::tie(f.efficiency, f.extra_latency_us) = search(grid, cases, all);
  f.extra_latency_us *= 1e6;
  f.params = start;
  set_efficiency(f.params, f.efficiency_key, f.efficiency);
  f.params.extra_latency_us = f.extra_latency_us;

  // Leave-one-out folds: by file when there are several, else by sample.
  std::map<std::string, std::vector<size_t>> folds;
  for (size_t i = 0; i < cases.size(); ++i) folds[cases[i].s->pos.file].push_back(i);
  f.loo_by = folds.size() > 1 ? "file" : "sample";
  if (folds.size() <= 1) {
    folds.clear();
    for (size_t i = 0; i < cases.size(); ++i) folds[std::to_string(i)].push_back(i);
  }
  const size_t best_k = static_cast<size_t>(std::lround(f.efficiency * 100)) - 5;
  f.residuals.resize(cases.size());
  for (size_t i = 0; i < cases.size(); ++i)
    f.residuals[i] = {cases[i].s, grid[best_k].model[i] + f.extra_latency_us * 1e-6, 0};
  for (const auto& [name, members] : folds) {
    std::vector<bool> use(cases.size(), true);
    for (size_t i : members) use[i] = false;
    if (std::none_of(use.begin(), use.end(), [](bool b) { return b; })) continue;
    const auto [e, x] = search(grid, cases, use);
    const size_t k = static_cast<size_t>(std::lround(e * 100)) - 5;
    for (size_t i : members) f.residuals[i].loo_predicted_s = grid[k].model[i] + x;
  }
  return f;
}

std::string format_nccl_fit(const NcclFit& f) {
  std::string t = fmt::format("# NCCL model fit: {} efficiency {:.2f}, extra latency {:.2f} us (leave-one-out by {})\n",
                              f.efficiency_key, f.efficiency, f.extra_latency_us, f.loo_by);
  t += fmt::format("# {:>14} {:>5} {:>14} {:>12} {:>12} {:>8} {:>8}\n", "op", "ranks", "size (B)", "measured",
                   "predicted", "error", "loo");
  t += fmt::format("# {:>14} {:>5} {:>14} {:>12} {:>12} {:>8} {:>8}\n", "", "", "", "busbw GB/s", "busbw GB/s", "%", "%");
  for (const auto& r : f.residuals) {
    const double bus = r.sample->size_bytes * r.sample->busbw_factor;
    auto err = [&](double pred) { return pred > 0 ? (r.sample->time_s / pred - 1) * 100 : 0.0; };
    t += fmt::format("  {:>14} {:>5} {:>14.0f} {:>12.2f} {:>12.2f} {:>+8.1f} {:>+8.1f}\n", r.sample->op, r.sample->nranks,
                     r.sample->size_bytes, bus / r.sample->time_s / 1e9, bus / r.predicted_s / 1e9,
                     err(r.predicted_s), err(r.loo_predicted_s));
  }
  return t;
}

std::string nccl_fit_profile_yaml(const NcclFit& f, const Measurements& m, const std::string& topology,
                                  const std::vector<std::string>& applies_to) {
  std::string y = "# plansim calibration profile (README \"Calibration profiles\"), written by `plansim calibrate "
                  "--topology`:\n# the NCCL model's per-system parameters fitted to measured collectives "
                  "(sim/calib/nccl_fit.hpp).\n";
  for (const auto& line : [&] {
         std::vector<std::string> v;
         std::string s = format_nccl_fit(f), cur;
         for (char c : s) {
           if (c == '\n') v.push_back(cur), cur.clear();
           else cur += c;
         }
         return v;
       }())
    y += "#" + (line.rfind("#", 0) == 0 ? line.substr(1) : line) + "\n";
  y += fmt::format("plansim_profile: {}\n", kProfileFormatVersion);
  y += fmt::format("name: {}\n", yaml_quoted((m.device.empty() ? std::string("system") : m.device) + " (nccl fit)"));
  if (!applies_to.empty()) {
    y += "applies_to: [";
    for (size_t i = 0; i < applies_to.size(); ++i) y += (i ? ", " : "") + yaml_quoted(applies_to[i]);
    y += "]\n";
  }
  y += "source:\n";
  y += fmt::format("  summary: {}\n", yaml_quoted("NCCL model fitted on topology " + topology));
  y += "  data:\n";
  for (const auto& s : m.sources) y += fmt::format("    - {}\n", yaml_quoted(s));
  y += "collectives:\n";
  y += fmt::format("  efficiency:\n    {}: {:.2f}\n", f.efficiency_key, f.efficiency);
  y += fmt::format("  extra_latency: {:.2f} us\n", f.extra_latency_us);
  return y;
}

}  // namespace plansim::calib
