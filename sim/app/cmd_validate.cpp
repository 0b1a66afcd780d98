// `plansim validate`: measured against simulated.
//   plansim validate --sim SIM.json --measured HW.json [--tolerance X]   per op class and end to end; exit 1
//       beyond the tolerance. --measured may also be a PyTorch profiler (Kineto) Chrome trace: then both
//       sides are compared per class total and NCCL op on the trace's rank (sim/io/kineto_trace_reader.hpp).
//   plansim validate --runs RUNS.yaml... [--calibration P] [--expect E.yaml]   published end-to-end runs:
//       predicted vs published per run, MAPE / max / bias per data set; with --expect, exit 1 when a data
//       set's MAPE exceeds its recorded value by more than 1 point.
//   --json FILE: either comparison as JSON (what `plansim report` draws).
#include <cstdio>
#include <memory>

#include "sim/api/commands.hpp"
#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/core/error.hpp"

namespace plansim::app {
namespace {

struct Args {
  std::string sim, measured;
  double tolerance = 0.10;
  std::string write_expect;
  std::string json;
  api::ValidateRunsRequest runs;  // --calibration lands in runs.sets as calibration=FILE
};

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
  sub->add_option("--runs", args->runs.runs, "published runs files (validate/<gpu>/runs.yaml; repeatable)");
  add_calibration_option(sub, args->runs.sets);
  sub->add_option("--dataset", args->runs.datasets, "only the runs of this data set (repeatable)");
  sub->add_option("--expect", args->runs.expect, "recorded MAPE per data set (exit 1 when one rises > 1 point)");
  sub->add_option("--write-expect", args->write_expect, "write the MAPE per data set in --expect's format");
  sub->add_option("--json", args->json, "write the comparison as JSON to FILE ('-' = stdout, replacing the text)");
  sub->add_option("-j,--jobs", args->runs.threads, "simulations at once (0 = one per core)");
  return {sub, [args] {
            check_output_path("--json", args->json);
            api::CommandResult r;
            if (!args->runs.runs.empty()) {
              std::string expect;
              r = api::validate_runs(args->runs, args->write_expect.empty() ? nullptr : &expect);
              if (!args->write_expect.empty()) write_output(args->write_expect, expect);
            } else {
              if (args->sim.empty() || args->measured.empty())
                throw ConfigError(SourcePos{"plansim validate", 0, 0}, "give --sim and --measured, or --runs");
              r = api::validate_report(args->sim, args->measured, args->tolerance);
            }
            if (args->json != "-") write_output("-", r.text);
            if (!args->json.empty()) write_output(args->json, r.json);
            for (const auto& m : r.messages) std::fprintf(stderr, "%s\n", m.c_str());
            return r.status == 0 ? kExitOk : kExitFindings;
          }};
}

}  // namespace plansim::app
