// `plansim calibrate` as library calls (api/commands.hpp): profiles fitted to microbenchmarks, or compute
// keys fitted to published end-to-end runs (README "Calibration profiles").
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <nlohmann/json.hpp>

#include "sim/api/commands.hpp"
#include "sim/calib/calibrate.hpp"
#include "sim/calib/collective_residuals.hpp"
#include "sim/calib/nccl_fit.hpp"
#include "sim/calib/run_fit.hpp"
#include "sim/calib/run_predict.hpp"
#include "sim/calib/run_report.hpp"
#include "sim/io/bench_reader.hpp"
#include "sim/io/nccl_calibration.hpp"
#include "sim/io/nccl_tests_reader.hpp"
#include "sim/io/profile_yaml.hpp"
#include "sim/io/runs_yaml.hpp"
#include "sim/io/topology_loader.hpp"
#include "sim/topo/gpu_catalog.hpp"

namespace plansim::api {
namespace {

// Default bounds for the keys that are fractions or factors (README "Calibration profiles").
calib::FitParameter parse_fit(const std::string& text) {
  const SourcePos where{"--fit " + text, 0, 0};
  calib::FitParameter p;
  const auto eq = text.find('=');
  p.key = text.substr(0, eq);
  if (p.key == "sustained_factor") p = {p.key, 0.2, 1.0, 0.9};
  else if (p.key == "attention_efficiency") p = {p.key, 0.05, 1.0, 0.5};
  else if (p.key == "flash2_attention_efficiency") p = {p.key, 0.05, 1.0, 0.5};
  else if (p.key == "alibi_attention_efficiency") p = {p.key, 0.05, 1.0, 0.5};
  else if (p.key == "hbm_efficiency") p = {p.key, 0.2, 1.0, 0.85};
  else if (p.key == "fp8_gemm_factor") p = {p.key, 0.2, 1.0, 0.8};
  else if (p.key == "grouped_gemm_efficiency") p = {p.key, 0.1, 1.0, 0.8};
  else if (p.key == "moe_load_imbalance") p = {p.key, 1.0, 4.0, 1.2};
  else if (p.key == "gemm_feed_ratio") p = {p.key, 0.3, 3.0, 1.0};
  else if (p.key == "gemm_tile_latency") p = {p.key, 0.01, 20.0, 1.0};  // microseconds
  else if (p.key == "expert_launch_overhead") p = {p.key, 0.1, 200.0, 10.0};  // microseconds
  else if (eq == std::string::npos)
    throw ConfigError(where, fmt::format("'{}' has no default bounds: give them as {}=LO:HI", p.key, p.key));
  if (eq != std::string::npos) {
    double lo = 0, hi = 0, start = 0;
    const std::string range = text.substr(eq + 1);
    const int n = std::sscanf(range.c_str(), "%lf:%lf:%lf", &lo, &hi, &start);
    if (n < 2 || !(lo > 0 && lo < hi)) throw ConfigError(where, "bounds must read LO:HI[:START] with 0 < LO < HI");
    p.lo = lo;
    p.hi = hi;
    p.start = n == 3 ? start : std::sqrt(lo * hi);
    if (!(p.start >= lo && p.start <= hi)) throw ConfigError(where, "START must lie between LO and HI");
  }
  // The key must be a compute key that takes a number (times in microseconds).
  (void)io::parse_compute_keys({{p.key, calib::fit_value_text(p.key, p.start)}}, where.file);
  return p;
}

}  // namespace

CommandResult calibrate_runs(const CalibrateRunsRequest& a) {
  std::string runs_option;  // "--runs A --runs B", as the command was given
  for (const auto& f : a.runs) runs_option += (runs_option.empty() ? "--runs " : " --runs ") + f;
  if (a.fit.empty()) throw ConfigError(SourcePos{runs_option, 0, 0}, "name the compute keys to fit with --fit KEY[=LO:HI]");
  std::vector<calib::FitParameter> params;
  for (const auto& f : a.fit) params.push_back(parse_fit(f));
  std::vector<std::pair<std::string, std::string>> kept;
  for (const auto& k : a.keep) {
    const auto eq = k.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError(SourcePos{"--keep " + k, 0, 0}, "use --keep KEY=VALUE");
    kept.emplace_back(k.substr(0, eq), k.substr(eq + 1));
  }
  (void)io::parse_compute_keys(kept, "--keep");  // refuse a bad --keep before any simulation
  // Fits start from plansim's built-in compute model, not from any compute profile, so that they are
  // reproducible; the collectives are the system's (the topology's profile), as every run of that system has
  // them, so that the written profile (base: none) reproduces the fit where it is shipped or named.
  const calib::RunSet set = io::merge_run_sets(io::load_run_files(a.runs, {"calibration=defaults"}, a.datasets));
  std::vector<double> measured;
  for (const auto& r : set.runs) measured.push_back(r.measured_iteration_s());
  const calib::RunEvaluator evaluate = [&](const std::vector<double>& values, const std::vector<size_t>& which) {
    std::vector<std::pair<std::string, std::string>> kv = kept;
    for (size_t k = 0; k < params.size(); ++k) kv.emplace_back(params[k].key, calib::fit_value_text(params[k].key, values[k]));
    const ComputeOverrides extra = io::parse_compute_keys(kv, "--fit");
    std::vector<double> out;
    for (const auto& p : calib::predict_runs(set, which, extra, a.threads)) out.push_back(p.iteration_s);
    return out;
  };
  calib::RunFit fit;
  try {
    calib::RunFitOptions options;
    options.leave_one_out = a.leave_one_out;
    options.loo_exact = a.loo_exact;
    fit = calib::fit_runs(measured, params, evaluate, options);
  } catch (const calib::FitError& e) {
    throw ConfigError(SourcePos{set.file, 0, 0}, std::string("cannot fit: ") + e.what());
  }
  std::string command = "plansim calibrate " + runs_option;
  for (const auto& d : a.datasets) command += " --dataset " + d;
  for (const auto& f : a.fit) command += " --fit " + f;
  for (const auto& k : a.keep) command += " --keep '" + k + "'";
  calib::FittedProfileInfo info{a.name.empty() ? set.gpu + "-fitted" : a.name, a.stack, command,
                                a.applies_to.empty() ? std::vector<std::string>{} : a.applies_to, kept};
  CommandResult out;
  out.text = calib::fitted_profile_yaml(set, params, fit, info);
  out.messages.push_back(calib::format_run_fit(set, params, fit));
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (size_t k = 0; k < params.size(); ++k)
    values[params[k].key] = {{"value", fit.values[k]}, {"lo", params[k].lo}, {"hi", params[k].hi},
                             {"at_bound", static_cast<bool>(fit.at_bound[k])}};
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (size_t i = 0; i < set.runs.size(); ++i) {
    nlohmann::ordered_json entry{{"name", set.runs[i].name},
                                 {"dataset", set.runs[i].dataset},
                                 {"measured_iteration_s", measured[i]},
                                 {"predicted_iteration_s", fit.predicted_s[i]}};
    if (i < fit.loo_predicted_s.size()) entry["loo_predicted_iteration_s"] = fit.loo_predicted_s[i];
    runs.push_back(entry);
  }
  out.json = nlohmann::ordered_json{{"runs_files", a.runs}, {"gpu", set.gpu}, {"fitted", values}, {"runs", runs},
                                    {"iterations", fit.iterations}, {"evaluations", fit.evaluations},
                                    {"profile", out.text}}
                 .dump(2) + "\n";
  return out;
}

CommandResult calibrate_bench(const std::vector<std::string>& inputs, const std::vector<std::string>& applies_to,
                              const std::string& topology, int nodes, const std::string& start, const std::string& gpu) {
  if (inputs.empty())
    throw ConfigError(SourcePos{"plansim calibrate", 0, 0},
                      "give bench JSON files or nccl-tests logs, or --runs RUNS.yaml with --fit KEY");
  calib::Measurements m;
  for (const auto& path : inputs) {
    if (io::looks_like_nccl_tests_file(path)) io::read_nccl_tests_file(path, m);
    else io::read_bench_file(path, m);
  }
  if (!topology.empty()) {  // the NCCL model's per-system parameters, fitted by running it (calib/nccl_fit.hpp)
    const Topology topo = load_topology(topology, nodes > 0 ? std::optional<int>(nodes) : std::nullopt);
    const NcclModelParams from = start.empty() ? NcclModelParams{} : io::load_nccl_calibration(start);
    const calib::NcclFit fit = calib::fit_nccl_model(m, topo, from);
    return CommandResult{0, calib::nccl_fit_profile_yaml(fit, m, topology, applies_to, start), "",
                         {calib::format_nccl_fit(fit)}};
  }
  // The GPU measured: named, or found from the bench files' device name.
  std::optional<GpuSpec> spec;
  if (!gpu.empty()) {
    spec = find_gpu_model(gpu);
    if (!spec) {
      std::string names;
      for (const auto& n : gpu_model_names()) names += (names.empty() ? "" : ", ") + n;
      throw ConfigError(SourcePos{"--gpu", 0, 0}, fmt::format("unknown GPU model '{}' (the catalog: {})", gpu, names));
    }
  } else if (const auto model = catalog_model_for_device(m.device)) {
    spec = find_gpu_model(*model);
  }
  if (!spec && !m.gemms.empty())
    spdlog::warn("calibrate: GPU '{}' is not in the catalog: the GEMM shape model is not fitted (--gpu MODEL names it)",
                 m.device);
  const calib::Profile profile = calib::calibrate(m, spec ? &*spec : nullptr);
  spdlog::info("calibrate: {} collective fit(s), {} GEMM fit(s), {} GEMM shape-model fit(s), {} HBM fit(s) from {} file(s)",
               profile.collectives.size(), profile.gemms.size(), profile.gemm_shapes.size(), profile.hbm.size(),
               m.sources.size());
  std::string shapes;
  for (const auto& f : profile.gemm_shapes) shapes += calib::format_gemm_shape_fit(f);
  return CommandResult{0, calib::profile_yaml(profile, applies_to), "",
                       {calib::format_collective_residuals(m, profile) + shapes}};
}

}  // namespace plansim::api
