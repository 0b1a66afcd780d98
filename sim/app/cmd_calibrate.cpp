// `plansim calibrate`: fits calibration profiles (README "Calibration profiles"; sim/api/calibrate.cpp).
//   plansim calibrate BENCH.json|NCCL-TESTS.log... [-o PROFILE.yaml] [--gpu MODEL]   microbenchmark fits
//       (plansim-hw bench JSON; nccl-tests stdout or -J JSON, io/nccl_tests_reader.hpp), with the collective
//       fits' residuals per size and leave-one-out errors; GEMM rows fit the simulator's shape model of the
//       GPU measured (calib/gemm_shape_fit.hpp); with --topology, the NCCL model's per-system parameters.
//   plansim calibrate --runs RUNS.yaml... --fit KEY[=LO:HI[:START]]... [--keep KEY=VALUE]... [-o PROFILE.yaml]
//       compute keys fitted to published end-to-end runs, with each run's residual and leave-one-out error.
#include <cstdio>
#include <memory>

#include "sim/api/commands.hpp"
#include "sim/app/command.hpp"

namespace plansim::app {
namespace {

struct Args {
  std::vector<std::string> inputs;
  std::string output = "-";
  api::CalibrateRunsRequest runs;
  bool no_loo = false;
  std::string topology;  // bench collectives: fit the NCCL model on this topology (calib/nccl_fit.hpp)
  int nodes = 0;
  std::string start;     // with --topology: the parameters the fit starts from and keeps
  std::string gpu;       // bench GEMM/HBM rows: the catalog GPU they were measured on
};

}  // namespace

Command add_calibrate_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("calibrate", "fit a calibration profile to measurements");
  sub->add_option("measured", args->inputs,
                  "bench JSON files (plansim-hw bench ... --json FILE) and nccl-tests logs (stdout, or -J JSON)");
  sub->add_option("-o,--output", args->output, "profile YAML to write ('-' = stdout)")->capture_default_str();
  sub->add_option("--runs", args->runs.runs, "published end-to-end runs (README \"Calibration profiles\"; repeatable: the files' runs are fitted together)");
  sub->add_option("--fit", args->runs.fit, "compute key to fit, KEY[=LO:HI[:START]] (repeatable; with --runs)");
  sub->add_option("--keep", args->runs.keep, "compute key held fixed and written, KEY=VALUE (repeatable; with --runs)");
  sub->add_option("--dataset", args->runs.datasets, "fit only the runs of this data set (repeatable; with --runs)");
  sub->add_option("--name", args->runs.name, "the profile's name (with --runs)");
  sub->add_option("--applies-to", args->runs.applies_to, "GPU model prefix the profile is for, e.g. H100-SXM (repeatable)");
  sub->add_option("--stack", args->runs.stack, "the software stack the runs used (free text)");
  sub->add_flag("--no-loo", args->no_loo, "skip the leave-one-out refits");
  sub->add_flag("--loo-exact", args->runs.loo_exact,
                "refit every leave-one-out fold by Levenberg-Marquardt (default: one Gauss-Newton step)");
  sub->add_option("--topology", args->topology,
                  "with bench JSON: fit the NCCL model's parameters (efficiency, per-call device latency and launch floor) on this topology");
  sub->add_option("--nodes", args->nodes, "override the topology's number of servers (with --topology)")
      ->check(CLI::Range(1, 1 << 20));
  sub->add_option("--calibration", args->start,
                  "with --topology: the profile whose NCCL parameters the fit starts from and keeps (default: NCCL's)");
  sub->add_option("--gpu", args->gpu,
                  "with bench JSON: the catalog GPU measured (default: from the files' device name), for the GEMM "
                  "shape model and the HBM efficiency");
  sub->add_option("-j,--jobs", args->runs.threads, "simulations at once (0 = one per core)")->capture_default_str();
  return {sub, [args] {
            check_output_path("--output", args->output);
            if (!args->runs.runs.empty()) {
              args->runs.leave_one_out = !args->no_loo;
              const api::CommandResult r = api::calibrate_runs(args->runs);
              // The fit table goes where the profile does not.
              if (args->output == "-") {
                std::fputs(r.messages.front().c_str(), stderr);
                write_output("-", r.text);
              } else {
                write_output(args->output, r.text);
                write_output("-", r.messages.front());
              }
              return kExitOk;
            }
            const api::CommandResult r =
                api::calibrate_bench(args->inputs, args->runs.applies_to, args->topology, args->nodes, args->start, args->gpu);
            write_output(args->output, r.text);
            // The residual table goes where the profile does not.
            if (args->output == "-") std::fputs(r.messages.front().c_str(), stderr);
            else write_output("-", r.messages.front());
            return kExitOk;
          }};
}

}  // namespace plansim::app
