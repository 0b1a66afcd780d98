// `plansim sweep FILE --vary key=v1,v2,... [--vary ...] [--set k=v]... [--csv FILE] [--json FILE] [-j N]`:
// simulate the cartesian product of the varied keys in parallel and print one row per point.
#include <memory>

#include "sim/api/commands.hpp"
#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/app/progress.hpp"
#include "sim/core/limits.hpp"

namespace plansim::app {
namespace {

struct SweepCliOptions {
  std::string file;
  std::vector<std::string> vary;
  std::vector<std::string> sets;
  std::string csv;
  std::string json;
  int jobs = 0;
};

}  // namespace

Command add_sweep_command(CLI::App& app) {
  auto opt = std::make_shared<SweepCliOptions>();
  CLI::App* sub = app.add_subcommand("sweep", "simulate the cartesian product of scenario keys, in parallel");
  sub->add_option("file", opt->file, "scenario YAML")->required();
  sub->add_option("--vary", opt->vary, "key.path=v1,v2,... (repeatable; the product of all is simulated)")
      ->required();
  sub->add_option("--set", opt->sets, "override a scenario key for every point (repeatable)");
  add_calibration_option(sub, opt->sets);  // after --set, whose callback assigns the list
  sub->add_option("--csv", opt->csv, "write the results as CSV to FILE ('-' = stdout)");
  sub->add_option("--json", opt->json, "write the results as JSON to FILE ('-' = stdout)");
  sub->add_option("-j,--jobs", opt->jobs, "parallel simulations (0 = hardware threads)")
      ->check(count_in(0, limits::kMaxJobs));
  return {sub, [opt] {
            check_output_path("--csv", opt->csv);
            check_output_path("--json", opt->json);
            Progress progress("sweep");
            const advise::SweepResult r = api::sweep(opt->file, opt->vary, opt->sets, opt->jobs,
                                                     [&](size_t done, size_t total) { progress.update(done, total); });
            if (opt->csv != "-" && opt->json != "-") write_output("-", advise::sweep_table(r));
            if (!opt->csv.empty()) write_output(opt->csv, advise::sweep_csv(r));
            if (!opt->json.empty()) write_output(opt->json, advise::sweep_json(r));
            return kExitOk;
          }};
}

}  // namespace plansim::app
