// `plansim validate` as library calls (api/commands.hpp): a simulated report against a measured one
// (or a Kineto trace), and published end-to-end runs against their predictions.
#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "sim/api/commands.hpp"
#include "sim/calib/run_predict.hpp"
#include "sim/calib/run_report.hpp"
#include "sim/calib/validate.hpp"
#include "sim/io/expected_mape.hpp"
#include "sim/io/kineto_trace_reader.hpp"
#include "sim/io/report_timings_reader.hpp"
#include "sim/io/runs_yaml.hpp"

namespace plansim::api {
namespace {

nlohmann::ordered_json stats_json(const calib::ErrorStats& s) {
  return {{"runs", s.runs}, {"mape", s.mape}, {"max_abs", s.max_abs}, {"bias", s.bias}};
}

}  // namespace

CommandResult validate_report(const std::string& sim_file, const std::string& measured_file, double tolerance) {
  calib::ReportTimings sim = io::read_report_timings(sim_file);
  calib::ReportTimings measured;
  std::string header;
  if (io::is_chrome_trace(measured_file)) {
    const io::KinetoSummary k = io::read_kineto_trace(measured_file);
    header = fmt::format("measured: Kineto trace of rank {}, {} ProfilerStep(s), median {:.4f} ms, {} kernels; "
                         "per iteration, by class and NCCL op\n",
                         k.rank, k.steps, k.iteration_s * 1e3, k.kernels);
    measured = io::kineto_timings(k);
    sim = io::aggregate_like_kineto(sim, k.rank);
  } else {
    measured = io::read_report_timings(measured_file);
  }
  const calib::Validation v = calib::validate(sim, measured, tolerance);
  nlohmann::ordered_json j;
  j["sim"] = sim_file;
  j["measured"] = measured_file;
  j["end_to_end_rel"] = v.end_to_end_rel;
  nlohmann::ordered_json classes = nlohmann::ordered_json::object();
  for (const auto& [name, c] : v.classes)
    classes[name] = {{"ops", c.ops},
                     {"median_abs_rel", c.median_abs_rel},
                     {"max_abs_rel", c.max_abs_rel},
                     {"sim_total_s", c.sim_total_s},
                     {"measured_total_s", c.measured_total_s}};
  j["classes"] = classes;
  j["unmatched_sim"] = v.unmatched_sim;
  j["unmatched_measured"] = v.unmatched_measured;
  j["tolerance"] = v.tolerance;
  j["within_tolerance"] = v.within_tolerance;
  return CommandResult{v.within_tolerance ? 0 : 1, header + calib::format_validation(v), j.dump(2) + "\n", {}};
}

CommandResult validate_runs(const ValidateRunsRequest& r, std::string* write_expect) {
  CommandResult out;
  std::map<std::string, calib::ErrorStats> mape;  // "<gpu>/<dataset>" -> stats
  const io::ExpectedMape expected = r.expect.empty() ? io::ExpectedMape{} : io::load_expected_mape(r.expect);
  nlohmann::ordered_json files = nlohmann::ordered_json::array();
  for (const calib::RunSet& set : io::load_run_files(r.runs, r.sets, r.datasets)) {
    if (set.runs.empty()) continue;  // none of the --dataset sets is in this file
    const std::string& file = set.file;
    std::vector<size_t> all(set.runs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    const auto predictions = calib::predict_runs(set, all, ComputeOverrides{}, r.threads);
    const calib::RunValidation v = calib::run_validation(set, predictions);
    std::string calibration;
    for (const auto& l : set.runs.front().loaded->scenario.calibration.layers)
      calibration += (calibration.empty() ? "" : " + ") + l.origin + " " + l.file;
    out.text += calib::format_run_validation(set, predictions, v, calibration.empty() ? "none" : calibration);
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (size_t i = 0; i < set.runs.size(); ++i)
      runs.push_back({{"name", set.runs[i].name},
                      {"dataset", set.runs[i].dataset},
                      {"group", set.runs[i].group},
                      {"measured_iteration_s", set.runs[i].measured_iteration_s()},
                      {"predicted_iteration_s", predictions[i].iteration_s},
                      {"oom", predictions[i].oom},
                      {"throughput_error", v.errors[i]}});
    nlohmann::ordered_json datasets = nlohmann::ordered_json::object();
    for (const auto& [dataset, s] : v.datasets) {
      datasets[dataset] = stats_json(s);
      if (auto o = v.order.find(dataset); o != v.order.end())
        datasets[dataset]["plan_order"] = {{"groups", o->second.groups},
                                           {"pairs", o->second.pairs},
                                           {"agreeing", o->second.agreeing},
                                           {"within_tie", o->second.within_tie},
                                           {"tie", calib::kPlanOrderTie}};
      const std::string key = set.gpu + "/" + dataset;
      mape[key] = s;
      if (auto it = expected.mape_pct.find(key); it != expected.mape_pct.end() && 100 * s.mape > it->second + 1.0) {
        out.messages.push_back(fmt::format("{}: {}: MAPE {:.1f} % is more than 1 point above its recorded {:.1f} %",
                                           r.expect, key, 100 * s.mape, it->second));
        out.status = 1;
      }
    }
    files.push_back({{"file", file},
                     {"gpu", set.gpu},
                     {"calibration", calibration.empty() ? "none" : calibration},
                     {"runs", runs},
                     {"datasets", datasets},
                     {"all", stats_json(v.all)}});
  }
  out.json = nlohmann::ordered_json{{"files", files}}.dump(2) + "\n";
  if (write_expect) {
    *write_expect = "# Recorded MAPE (%) per GPU/data set of `plansim validate --runs`; tests fail when one rises\n"
                    "# more than 1 point above it. Rewrite with --write-expect after a deliberate model change.\n"
                    "mape_pct:\n";
    for (const auto& [k, s] : mape) *write_expect += fmt::format("  \"{}\": {:.2f}\n", k, 100 * s.mape);
  }
  return out;
}

}  // namespace plansim::api
