// `plansim validate --sim SIM.json --measured HW.json [--tolerance X]`: error per op class and end to end;
// exit 1 beyond the tolerance. --measured may also be a PyTorch profiler (Kineto) Chrome trace: then both
// sides are compared per class total and NCCL op on the trace's rank (sim/io/kineto_trace_reader.hpp).
#include <fmt/format.h>

#include "sim/app/command.hpp"
#include "sim/calib/validate.hpp"
#include "sim/io/kineto_trace_reader.hpp"
#include "sim/io/report_timings_reader.hpp"

namespace plansim::app {

Command add_validate_command(CLI::App& app) {
  struct Args {
    std::string sim, measured;
    double tolerance = 0.10;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("validate", "compare a simulated report with a measured one");
  sub->add_option("--sim", args->sim, "simulated report JSON")->required();
  sub->add_option("--measured", args->measured,
                  "measured report JSON (plansim-hw), or a PyTorch profiler (Kineto) Chrome trace")
      ->required();
  sub->add_option("--tolerance", args->tolerance,
                  "largest accepted relative error of the iteration time and of each class median (0.10 = 10 %)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e9));
  return {sub, [args] {
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
