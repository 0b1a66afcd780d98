// `plansim validate --sim SIM.json --measured HW.json [--tolerance X]`: error per op class and end to end;
// exit 1 beyond the tolerance.
#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/calib/validate.hpp"
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
  sub->add_option("--measured", args->measured, "measured report JSON (plansim-hw)")->required();
  sub->add_option("--tolerance", args->tolerance,
                  "largest accepted relative error of the iteration time and of each class median (0.10 = 10 %)")
      ->capture_default_str()
      ->check(number_in({0, 1e6}));
  return {sub, [args] {
            const calib::ReportTimings sim = io::read_report_timings(args->sim);
            const calib::ReportTimings measured = io::read_report_timings(args->measured);
            const calib::Validation v = calib::validate(sim, measured, args->tolerance);
            write_output("-", calib::format_validation(v));
            return v.within_tolerance ? kExitOk : kExitFindings;
          }};
}

}  // namespace plansim::app
