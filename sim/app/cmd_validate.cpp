// `plansim validate`: measured against simulated.
//   plansim validate --sim SIM.json --measured HW.json [--tolerance X]   per op class and end to end; exit 1
//       beyond the tolerance. --measured may also be a PyTorch profiler (Kineto) Chrome trace: then both
//       sides are compared per class total and NCCL op on the trace's rank (sim/io/kineto_trace_reader.hpp).
//   plansim validate --runs RUNS.yaml... [--calibration P] [--expect E.yaml]   published end-to-end runs:
//       predicted vs published per run, MAPE / max / bias per data set; with --expect, exit 1 when a data
//       set's MAPE exceeds its recorded value by more than 1 point.
#include <fmt/format.h>

#include <cstdio>

#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/calib/run_predict.hpp"
#include "sim/calib/run_report.hpp"
#include "sim/calib/validate.hpp"
#include "sim/io/expected_mape.hpp"
#include "sim/io/kineto_trace_reader.hpp"
#include "sim/io/report_timings_reader.hpp"
#include "sim/io/runs_yaml.hpp"

namespace plansim::app {
namespace {

struct Args {
  std::string sim, measured;
  double tolerance = 0.10;
  std::vector<std::string> runs, datasets;
  std::vector<std::string> sets;  // --calibration lands here as calibration=FILE
  std::string expect, write_expect;
  unsigned threads = 0;
};

int validate_runs(const Args& a) {
  std::map<std::string, calib::ErrorStats> mape;  // "<gpu> <dataset>" -> stats
  bool regressed = false;
  const io::ExpectedMape expected = a.expect.empty() ? io::ExpectedMape{} : io::load_expected_mape(a.expect);
  for (const auto& file : a.runs) {
    const calib::RunSet set = io::load_runs(file, a.sets, a.datasets);
    std::vector<size_t> all(set.runs.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    const auto predictions = calib::predict_runs(set, all, ComputeOverrides{}, a.threads);
    const calib::RunValidation v = calib::run_validation(set, predictions);
    std::string calibration;
    for (const auto& l : set.runs.front().loaded->scenario.calibration.layers)
      calibration += (calibration.empty() ? "" : " + ") + l.origin + " " + l.file;
    write_output("-", calib::format_run_validation(set, predictions, v, calibration.empty() ? "none" : calibration));
    for (const auto& [dataset, s] : v.datasets) {
      const std::string key = set.gpu + "/" + dataset;
      mape[key] = s;
      if (auto it = expected.mape_pct.find(key); it != expected.mape_pct.end() && 100 * s.mape > it->second + 1.0) {
        std::fprintf(stderr, "%s: %s: MAPE %.1f %% is more than 1 point above its recorded %.1f %%\n",
                     a.expect.c_str(), key.c_str(), 100 * s.mape, it->second);
        regressed = true;
      }
    }
  }
  if (!a.write_expect.empty()) {
    std::string y = "# Recorded MAPE (%) per GPU/data set of `plansim validate --runs`; tests fail when one rises\n"
                    "# more than 1 point above it. Rewrite with --write-expect after a deliberate model change.\n"
                    "mape_pct:\n";
    for (const auto& [k, s] : mape) y += fmt::format("  \"{}\": {:.2f}\n", k, 100 * s.mape);
    write_output(a.write_expect, y);
  }
  return regressed ? kExitFindings : kExitOk;
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("validate", "compare simulated with measured: a report, a trace, or published runs");
  sub->add_option("--sim", args->sim, "simulated report JSON");
  sub->add_option("--measured", args->measured,
                  "measured report JSON (plansim-hw), or a PyTorch profiler (Kineto) Chrome trace");
  sub->add_option("--tolerance", args->tolerance,
                  "largest accepted relative error of the iteration time and of each class median (0.10 = 10 %)")
      ->capture_default_str()
      ->check(number_in({0, 1e6}));
  sub->add_option("--runs", args->runs, "published runs files (validate/<gpu>/runs.yaml; repeatable)");
  add_calibration_option(sub, args->sets);
  sub->add_option("--dataset", args->datasets, "only the runs of this data set (repeatable)");
  sub->add_option("--expect", args->expect, "recorded MAPE per data set (exit 1 when one rises > 1 point)");
  sub->add_option("--write-expect", args->write_expect, "write the MAPE per data set in --expect's format");
  sub->add_option("-j,--jobs", args->threads, "simulations at once (0 = one per core)");
  return {sub, [args] {
            if (!args->runs.empty()) return validate_runs(*args);
            if (args->sim.empty() || args->measured.empty())
              throw ConfigError(SourcePos{"plansim validate", 0, 0}, "give --sim and --measured, or --runs");
            calib::ReportTimings sim = io::read_report_timings(args->sim);
            calib::ReportTimings measured;
            std::string header;
            if (io::is_chrome_trace(args->measured)) {
              const io::KinetoSummary k = io::read_kineto_trace(args->measured);
              header = fmt::format("measured: Kineto trace of rank {}, {} ProfilerStep(s), median {:.4f} ms, {} kernels; "
                                   "per iteration, by class and NCCL op\n",
                                   k.rank, k.steps, k.iteration_s * 1e3, k.kernels);
              measured = io::kineto_timings(k);
              sim = io::aggregate_like_kineto(sim, k.rank);
            } else {
              measured = io::read_report_timings(args->measured);
            }
            const calib::Validation v = calib::validate(sim, measured, args->tolerance);
            write_output("-", header + calib::format_validation(v));
            return v.within_tolerance ? kExitOk : kExitFindings;
          }};
}

}  // namespace plansim::app
