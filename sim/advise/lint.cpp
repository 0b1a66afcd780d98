#include "sim/advise/lint.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/advise/point_runner.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"

namespace plansim::advise {

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : sep) + x;
  return out;
}

}  // namespace

LintResult run_lint(const std::filesystem::path& scenario, const LintOptions& options) {
  LintResult result;
  std::vector<Finding> raw;
  {
    LoadedScenario s = load_scenario(scenario, options.sets);
    PlanRun run = simulate_plan(s.scenario, s.topology, SimulateOptions{true, false});
    result.scenario = s.scenario.name;
    result.base = metrics_of(run.report);
    const LintContext ctx{s.scenario, s.topology, run.report, options.thresholds};
    for (const Rule& rule : lint_rules())
      for (Finding& f : rule.check(ctx)) raw.push_back(std::move(f));
  }
  // Every candidate of every finding, simulated in one parallel batch.
  std::vector<std::vector<std::string>> points;
  std::vector<size_t> first;
  for (const Finding& f : raw) {
    first.push_back(points.size());
    points.insert(points.end(), f.candidates.begin(), f.candidates.end());
  }
  const std::vector<PointResult> measured = run_points(scenario, options.sets, points, options.jobs);
  const double base_it = result.base.iteration_s;
  for (size_t i = 0; i < raw.size(); ++i) {
    const Finding& f = raw[i];
    const PointResult* best = nullptr;
    for (size_t k = 0; k < f.candidates.size(); ++k) {
      const PointResult& p = measured[first[i] + k];
      if (!p.valid || p.metrics.oom) continue;
      if (!best) best = &p;
      else if (f.always_report && p.sets.size() != best->sets.size()) {
        if (p.sets.size() < best->sets.size()) best = &p;  // the smallest change first
      } else if (p.metrics.tokens_per_s > best->metrics.tokens_per_s) {
        best = &p;
      }
    }
    MeasuredFinding m{{f.rule}, f.what, f.where, f.why, {}, false, {}, 0, 0, 0};
    if (best) {
      m.fix = best->sets;
      m.fix_found = true;
      m.fixed = best->metrics;
      // Time the base iteration's tokens take at the fixed plan's rate (fixes may change the batch).
      const double fixed_tps = best->metrics.tokens_per_s;
      m.saved_s = fixed_tps > 0 ? base_it * (1 - result.base.tokens_per_s / fixed_tps) : 0;
      m.saved_fraction = base_it > 0 ? m.saved_s / base_it : 0;
      m.tokens_per_s_gain = best->metrics.tokens_per_s - result.base.tokens_per_s;
    }
    const bool worth = f.always_report ||
                       (m.fix_found && m.tokens_per_s_gain > options.thresholds.min_gain * result.base.tokens_per_s);
    if (!worth) continue;
    bool merged = false;
    for (auto& prev : result.findings)
      if (prev.fix_found && m.fix_found && prev.fix == m.fix) {
        prev.rules.push_back(f.rule);
        merged = true;
      }
    if (!merged) result.findings.push_back(std::move(m));
  }
  return result;
}

std::string lint_text(const LintResult& r) {
  std::string out = fmt::format("{}: iteration {:.3f} s, {:.0f} tokens/s, MFU {:.1f} %{}\n", r.scenario,
                                r.base.iteration_s, r.base.tokens_per_s, 100 * r.base.mfu,
                                r.base.oom ? ", OUT OF MEMORY" : "");
  if (r.findings.empty()) return out + "no findings\n";
  for (const auto& f : r.findings) {
    out += fmt::format("\n[{}] {}\n  where: {}\n  why:   {}\n", join(f.rules, ", "), f.what, f.where, f.why);
    if (!f.fix_found) {
      out += "  fix:   none of the tried changes is valid and fits in memory\n";
      continue;
    }
    std::string sets;
    for (const auto& s : f.fix) sets += " --set " + s;
    out += fmt::format("  fix:  {}\n", sets);
    if (r.base.oom)
      out += fmt::format("  cost:  the plan does not run; fixed: iteration {:.3f} s, {:.0f} tokens/s, peak {:.1f} GiB\n",
                         f.fixed.iteration_s, f.fixed.tokens_per_s, f.fixed.memory_peak_gib);
    else
      out += fmt::format("  cost:  {:.3f} s of the {:.3f} s iteration ({:.1f} %); +{:.0f} tokens/s with the fix "
                         "({:.0f} -> {:.0f}; fixed iteration {:.3f} s, peak {:.1f} GiB)\n",
                         f.saved_s, r.base.iteration_s, 100 * f.saved_fraction, f.tokens_per_s_gain,
                         r.base.tokens_per_s, f.fixed.tokens_per_s, f.fixed.iteration_s, f.fixed.memory_peak_gib);
  }
  return out + fmt::format("\n{} finding{}\n", r.findings.size(), r.findings.size() == 1 ? "" : "s");
}

std::string lint_json(const LintResult& r) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["base"] = nlohmann::ordered_json::parse(metrics_json(r.base));
  j["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : r.findings) {
    nlohmann::ordered_json x;
    x["rules"] = f.rules;
    x["what"] = f.what;
    x["where"] = f.where;
    x["why"] = f.why;
    x["fix"] = f.fix;
    x["fix_found"] = f.fix_found;
    if (f.fix_found) {
      x["fixed"] = nlohmann::ordered_json::parse(metrics_json(f.fixed));
      x["saved_s"] = f.saved_s;
      x["saved_fraction"] = f.saved_fraction;
      x["tokens_per_s_gain"] = f.tokens_per_s_gain;
    }
    j["findings"].push_back(x);
  }
  return j.dump(2) + "\n";
}

}  // namespace plansim::advise
