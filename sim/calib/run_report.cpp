#include "sim/calib/run_report.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>

#include "sim/model/transformer.hpp"

namespace plansim::calib {
namespace {

// The published figure and the prediction in the metric's own unit.
double in_metric(const MeasuredRun& r, double iteration_s) {
  if (r.metric == RunMetric::iteration_time_s) return iteration_s;
  return r.value * r.measured_iteration_s() / iteration_s;  // every throughput is inversely proportional to time
}

// Rounded to the 0.1 % printed, so that a zero never shows as "-0.0 %".
double shown(double e) { return std::abs(e) < 0.0005 ? 0.0 : e; }
std::string pct(double e) { return fmt::format("{:+.1f} %", 100 * shown(e)); }

std::string stats_line(const std::string& what, const ErrorStats& s) {
  const double bias = shown(s.bias);
  return fmt::format("{:<28} {:>4} runs  MAPE {:5.1f} %  max {:5.1f} %  bias {:+.1f} % ({})\n", what, s.runs,
                     100 * s.mape, 100 * s.max_abs, 100 * bias,
                     bias > 0 ? "optimistic" : bias < 0 ? "pessimistic" : "none");
}

}  // namespace

std::string fit_value_text(const std::string& key, double value, int digits) {
  const bool time = key == "gemm_tile_latency" || key == "launch_overhead" || key == "expert_launch_overhead";
  return fmt::format("{:.{}g}{}", value, digits, time ? " us" : "");
}

std::string format_run_fit(const RunSet& set, const std::vector<FitParameter>& params, const RunFit& fit) {
  std::string out = fmt::format("# plansim calibrate --runs {}: {} runs on {}\n", set.file, set.runs.size(), set.gpu);
  for (size_t k = 0; k < params.size(); ++k)
    out += fmt::format("# fitted {} = {:.4g}  (bounds {:g}..{:g}{})\n", params[k].key, fit.values[k], params[k].lo,
                       params[k].hi, fit.at_bound[k] ? ", AT A BOUND: the data want it further" : "");
  out += fmt::format("# {} LM iterations, {} runs simulated in all\n", fit.iterations, fit.evaluations);
  out += "# error = predicted / published throughput - 1 (+: plansim optimistic); LOO = fitted without that run\n";
  out += fmt::format("{:<44} {:<24} {:>12} {:>12} {:>9} {:>9}\n", "run", "dataset", "published s", "predicted s",
                     "error", "LOO error");
  std::vector<double> in, loo;
  for (size_t i = 0; i < set.runs.size(); ++i) {
    const MeasuredRun& r = set.runs[i];
    const double meas = r.measured_iteration_s();
    in.push_back(throughput_error(fit.predicted_s[i], meas));
    std::string loo_text = "-";
    if (!fit.loo_predicted_s.empty()) {
      loo.push_back(throughput_error(fit.loo_predicted_s[i], meas));
      loo_text = pct(loo.back());
    }
    out += fmt::format("{:<44} {:<24} {:>12.4g} {:>12.4g} {:>9} {:>9}\n", r.name, r.dataset, meas, fit.predicted_s[i],
                       pct(in.back()), loo_text);
  }
  out += stats_line("in sample", error_stats(in));
  if (!loo.empty()) out += stats_line("leave-one-out", error_stats(loo));
  return out;
}

std::string fitted_profile_yaml(const RunSet& set, const std::vector<FitParameter>& params, const RunFit& fit,
                                const FittedProfileInfo& info) {
  std::string y = "# plansim calibration profile (README \"Calibration profiles\"), written by `plansim calibrate --runs`.\n";
  y += fmt::format("plansim_profile: {}\n", kProfileFormatVersion);
  y += fmt::format("name: {}\n", yaml_quoted(info.name));
  if (!info.applies_to.empty()) {
    y += "applies_to: [";
    for (size_t i = 0; i < info.applies_to.size(); ++i) y += (i ? ", " : "") + yaml_quoted(info.applies_to[i]);
    y += "]\n";
  }
  if (!info.stack.empty()) y += fmt::format("stack: {}\n", yaml_quoted(info.stack));
  y += "base: none  # fitted on the built-in compute model with the system's collectives: drops the compute of the profiles below it\n";
  std::set<std::string> datasets;
  for (const auto& r : set.runs) datasets.insert(r.dataset);
  std::string ds;
  for (const auto& d : datasets) ds += (ds.empty() ? "" : ", ") + d;
  y += "source:\n";
  y += fmt::format("  summary: {}\n", yaml_quoted(fmt::format("fitted by plansim calibrate to {} published {} runs ({})",
                                                         set.runs.size(), set.gpu, ds)));
  y += fmt::format("  fitted_by: {}\n", yaml_quoted(info.command));
  y += "  data:\n";
  std::set<std::string> sources;
  for (const auto& r : set.runs)
    if (sources.insert(r.source).second) y += fmt::format("    - {}\n", yaml_quoted(r.source));
  y += "compute:\n";
  for (const auto& [k, v] : info.kept) y += fmt::format("  {}: {}\n", k, v);
  for (size_t k = 0; k < params.size(); ++k)
    y += fmt::format("  {}: {}\n", params[k].key, fit_value_text(params[k].key, fit.values[k], 4));
  y += "fit:  # for people; not read back\n";
  y += "  method: \"least squares on ln(predicted/published time), Levenberg-Marquardt, Huber weights "
       "(sim/calib/run_fit.hpp)\"\n";
  std::vector<double> in, loo;
  for (size_t i = 0; i < set.runs.size(); ++i) {
    in.push_back(throughput_error(fit.predicted_s[i], set.runs[i].measured_iteration_s()));
    if (!fit.loo_predicted_s.empty())
      loo.push_back(throughput_error(fit.loo_predicted_s[i], set.runs[i].measured_iteration_s()));
  }
  const ErrorStats si = error_stats(in);
  y += fmt::format("  in_sample: {{runs: {}, mape_pct: {:.2f}, max_pct: {:.2f}, bias_pct: {:.2f}}}\n", si.runs,
                   100 * si.mape, 100 * si.max_abs, 100 * si.bias);
  if (!loo.empty()) {
    const ErrorStats sl = error_stats(loo);
    y += fmt::format("  leave_one_out: {{runs: {}, mape_pct: {:.2f}, max_pct: {:.2f}, bias_pct: {:.2f}}}\n", sl.runs,
                     100 * sl.mape, 100 * sl.max_abs, 100 * sl.bias);
  }
  y += "  runs:  # error = predicted / published throughput - 1, in %\n";
  for (size_t i = 0; i < set.runs.size(); ++i)
    y += fmt::format("    - {{name: {}, error_pct: {:.2f}{}}}\n", yaml_quoted(set.runs[i].name), 100 * in[i],
                     loo.empty() ? "" : fmt::format(", loo_error_pct: {:.2f}", 100 * loo[i]));
  return y;
}

RunValidation run_validation(const RunSet& set, const std::vector<RunPrediction>& predictions) {
  RunValidation v;
  std::map<std::string, std::vector<double>> by;
  for (size_t i = 0; i < set.runs.size(); ++i) {
    v.errors.push_back(throughput_error(predictions[i].iteration_s, set.runs[i].measured_iteration_s()));
    by[set.runs[i].dataset].push_back(v.errors.back());
  }
  for (const auto& [d, e] : by) v.datasets[d] = error_stats(e);
  v.all = error_stats(v.errors);
  // Plan order by model FLOP/s per GPU: the work of each run over its published and its predicted time.
  std::map<std::string, std::vector<size_t>> grouped;
  for (size_t i = 0; i < set.runs.size(); ++i)
    if (!set.runs[i].group.empty()) grouped[set.runs[i].dataset].push_back(i);
  for (const auto& [d, idx] : grouped) {
    std::vector<std::string> group;
    std::vector<double> published, predicted;
    for (size_t i : idx) {
      const MeasuredRun& r = set.runs[i];
      const Scenario& s = r.loaded->scenario;
      const double work = model_flops_per_iteration(s.model, s.training.global_batch) /
                          static_cast<double>(s.parallel.world());
      group.push_back(r.group);
      published.push_back(work / r.measured_iteration_s());
      predicted.push_back(work / predictions[i].iteration_s);
    }
    v.order[d] = plan_order(group, published, predicted, kPlanOrderTie);
  }
  return v;
}

std::string format_run_validation(const RunSet& set, const std::vector<RunPrediction>& predictions,
                                  const RunValidation& v, const std::string& calibration) {
  std::string out = fmt::format("# plansim validate --runs {}: {} published runs on {}; calibration: {}\n", set.file,
                                set.runs.size(), set.gpu, calibration);
  out += "# error = predicted / published throughput - 1 (+: plansim optimistic)\n";
  out += fmt::format("{:<44} {:<24} {:<22} {:>11} {:>11} {:>9}\n", "run", "dataset", "metric", "published",
                     "predicted", "error");
  for (size_t i = 0; i < set.runs.size(); ++i) {
    const MeasuredRun& r = set.runs[i];
    out += fmt::format("{:<44} {:<24} {:<22} {:>11.5g} {:>11.5g} {:>9}{}\n", r.name, r.dataset, to_string(r.metric),
                       r.value, in_metric(r, predictions[i].iteration_s), pct(v.errors[i]),
                       predictions[i].oom ? "  (plansim: OOM)" : "");
  }
  for (const auto& [d, s] : v.datasets) out += stats_line(set.gpu + " " + d, s);
  out += stats_line(set.gpu + " all", v.all);
  for (const auto& [d, o] : v.order)
    out += fmt::format("{:<28} plan order: {} of {} pairs as published ({:.0f} %) in {} sweeps; {} pairs closer than "
                       "{:.0f} % published not ordered\n",
                       set.gpu + " " + d, o.agreeing, o.pairs, 100 * o.share(), o.groups, o.within_tie,
                       100 * kPlanOrderTie);
  return out;
}

}  // namespace plansim::calib
