// `plansim calibrate`: fits calibration profiles (README "Calibration profiles").
//   plansim calibrate BENCH.json|NCCL-TESTS.log... [-o PROFILE.yaml]   microbenchmark fits (plansim-hw bench
//       JSON; nccl-tests stdout or -J JSON, io/nccl_tests_reader.hpp), with the collective fits' residuals
//       per size and leave-one-out errors.
//   plansim calibrate --runs RUNS.yaml --fit KEY[=LO:HI[:START]]... [--keep KEY=VALUE]... [-o PROFILE.yaml]
//       compute keys fitted to published end-to-end runs, with each run's residual and leave-one-out error.
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include "sim/app/command.hpp"
#include "sim/calib/calibrate.hpp"
#include "sim/calib/collective_residuals.hpp"
#include "sim/calib/nccl_fit.hpp"
#include "sim/calib/run_fit.hpp"
#include "sim/calib/run_predict.hpp"
#include "sim/calib/run_report.hpp"
#include "sim/io/bench_reader.hpp"
#include "sim/io/nccl_tests_reader.hpp"
#include "sim/io/profile_yaml.hpp"
#include "sim/io/runs_yaml.hpp"
#include "sim/io/topology_loader.hpp"

namespace plansim::app {
namespace {

struct Args {
  std::vector<std::string> inputs;
  std::string output = "-";
  std::string runs;
  std::vector<std::string> fit, keep, applies_to, datasets;
  std::string name, stack;
  std::string topology;  // bench collectives: fit the NCCL model on this topology (calib/nccl_fit.hpp)
  int nodes = 0;
  bool no_loo = false, loo_exact = false;
  unsigned threads = 0;
  std::string command_line;
};

// Default bounds for the keys that are fractions or factors (README "Calibration profiles").
calib::FitParameter parse_fit(const std::string& text) {
  const SourcePos where{"--fit " + text, 0, 0};
  calib::FitParameter p;
  const auto eq = text.find('=');
  p.key = text.substr(0, eq);
  if (p.key == "sustained_factor") p = {p.key, 0.2, 1.0, 0.9};
  else if (p.key == "attention_efficiency") p = {p.key, 0.05, 1.0, 0.5};
  else if (p.key == "hbm_efficiency") p = {p.key, 0.2, 1.0, 0.85};
  else if (p.key == "fp8_gemm_factor") p = {p.key, 0.2, 1.0, 0.8};
  else if (p.key == "grouped_gemm_efficiency") p = {p.key, 0.1, 1.0, 0.8};
  else if (p.key == "moe_load_imbalance") p = {p.key, 1.0, 4.0, 1.2};
  else if (p.key == "gemm_feed_ratio") p = {p.key, 0.3, 3.0, 1.0};
  else if (p.key == "gemm_tile_latency") p = {p.key, 0.01, 20.0, 1.0};  // microseconds
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

int run_fit(const Args& a) {
  if (a.fit.empty())
    throw ConfigError(SourcePos{"--runs " + a.runs, 0, 0}, "name the compute keys to fit with --fit KEY[=LO:HI]");
  std::vector<calib::FitParameter> params;
  for (const auto& f : a.fit) params.push_back(parse_fit(f));
  std::vector<std::pair<std::string, std::string>> kept;
  for (const auto& k : a.keep) {
    const auto eq = k.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError(SourcePos{"--keep " + k, 0, 0}, "use --keep KEY=VALUE");
    kept.emplace_back(k.substr(0, eq), k.substr(eq + 1));
  }
  (void)io::parse_compute_keys(kept, "--keep");  // refuse a bad --keep before any simulation
  // Fits start from plansim's built-in defaults, not from any profile, so that they are reproducible.
  const calib::RunSet set = io::load_runs(a.runs, {"calibration=none"}, a.datasets);
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
    options.leave_one_out = !a.no_loo;
    options.loo_exact = a.loo_exact;
    fit = calib::fit_runs(measured, params, evaluate, options);
  } catch (const calib::FitError& e) {
    throw ConfigError(SourcePos{a.runs, 0, 0}, std::string("cannot fit: ") + e.what());
  }
  calib::FittedProfileInfo info{a.name.empty() ? set.gpu + "-fitted" : a.name, a.stack, a.command_line,
                                a.applies_to.empty() ? std::vector<std::string>{} : a.applies_to, kept};
  const std::string table = calib::format_run_fit(set, params, fit);
  const std::string profile = calib::fitted_profile_yaml(set, params, fit, info);
  if (a.output == "-") {
    std::fputs(table.c_str(), stderr);
    write_output("-", profile);
  } else {
    write_output(a.output, profile);
    write_output("-", table);
  }
  return kExitOk;
}

int run_nccl_fit(const Args& a, const calib::Measurements& m) {
  const Topology topo = load_topology(a.topology, a.nodes > 0 ? std::optional<int>(a.nodes) : std::nullopt);
  const calib::NcclFit fit = calib::fit_nccl_model(m, topo, NcclModelParams{});
  const std::string table = calib::format_nccl_fit(fit);
  const std::string profile = calib::nccl_fit_profile_yaml(fit, m, a.topology, a.applies_to);
  if (a.output == "-") {
    std::fputs(table.c_str(), stderr);
    write_output("-", profile);
  } else {
    write_output(a.output, profile);
    write_output("-", table);
  }
  return kExitOk;
}

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("calibrate", "fit a calibration profile to measurements");
  sub->add_option("measured", args->inputs,
                  "bench JSON files (plansim-hw bench ... --json FILE) and nccl-tests logs (stdout, or -J JSON)");
  sub->add_option("-o,--output", args->output, "profile YAML to write ('-' = stdout)")->capture_default_str();
  sub->add_option("--runs", args->runs, "published end-to-end runs (README \"Calibration profiles\")");
  sub->add_option("--fit", args->fit, "compute key to fit, KEY[=LO:HI[:START]] (repeatable; with --runs)");
  sub->add_option("--keep", args->keep, "compute key held fixed and written, KEY=VALUE (repeatable; with --runs)");
  sub->add_option("--dataset", args->datasets, "fit only the runs of this data set (repeatable; with --runs)");
  sub->add_option("--name", args->name, "the profile's name (with --runs)");
  sub->add_option("--applies-to", args->applies_to, "GPU model prefix the profile is for, e.g. H100-SXM (repeatable)");
  sub->add_option("--stack", args->stack, "the software stack the runs used (free text)");
  sub->add_flag("--no-loo", args->no_loo, "skip the leave-one-out refits");
  sub->add_flag("--loo-exact", args->loo_exact,
                "refit every leave-one-out fold by Levenberg-Marquardt (default: one Gauss-Newton step)");
  sub->add_option("--topology", args->topology,
                  "with bench JSON: fit the NCCL model's parameters (efficiency, extra latency) on this topology");
  sub->add_option("--nodes", args->nodes, "override the topology's number of servers (with --topology)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("-j,--jobs", args->threads, "simulations at once (0 = one per core)")->capture_default_str();
  return {sub, [args] {
            check_output_path("--output", args->output);
            if (!args->runs.empty()) {
              args->command_line = "plansim calibrate --runs " + args->runs;
              for (const auto& d : args->datasets) args->command_line += " --dataset " + d;
              for (const auto& f : args->fit) args->command_line += " --fit " + f;
              for (const auto& k : args->keep) args->command_line += " --keep '" + k + "'";
              return run_fit(*args);
            }
            if (args->inputs.empty())
              throw ConfigError(SourcePos{"plansim calibrate", 0, 0},
                                "give bench JSON files or nccl-tests logs, or --runs RUNS.yaml with --fit KEY");
            calib::Measurements m;
            for (const auto& path : args->inputs) {
              if (io::looks_like_nccl_tests_file(path)) io::read_nccl_tests_file(path, m);
              else io::read_bench_file(path, m);
            }
            if (!args->topology.empty()) return run_nccl_fit(*args, m);
            const calib::Profile profile = calib::calibrate(m);
            const std::string residuals = calib::format_collective_residuals(m, profile);
            spdlog::info("calibrate: {} collective fit(s), {} GEMM fit(s), {} HBM fit(s) from {} file(s)",
                         profile.collectives.size(), profile.gemms.size(), profile.hbm.size(), m.sources.size());
            write_output(args->output, calib::profile_yaml(profile, args->applies_to));
            if (args->output == "-") std::fputs(residuals.c_str(), stderr);  // stdout holds the profile
            else write_output("-", residuals);
            return kExitOk;
          }};
}

}  // namespace plansim::app
