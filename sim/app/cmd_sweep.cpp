// `plansim sweep FILE --vary key=v1,v2,... [--vary ...] [--set k=v]... [--csv FILE] [--json FILE] [-j N]`:
// [--shard K/N] [--out FILE]`: simulate the cartesian product of the varied keys in parallel and print
// one row per point (sharding and resuming: advise/sweep.hpp run_sweep).
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
  std::string shard;
  std::string out;
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
  sub->add_option("--shard", opt->shard, "run shard K of N (K/N, 0 <= K < N): points I with I mod N = K");
  sub->add_option("--out", opt->out,
                  "append each finished point to this results file (JSON lines) and resume from it; merge shards' "
                  "files with `plansim merge`");
  return {sub, [opt] {
            check_output_path("--csv", opt->csv);
            if (!opt->out.empty()) check_output_path("--out", opt->out);
            check_output_path("--json", opt->json);
            Progress progress("sweep");
            const advise::SweepResult r =
                api::sweep(opt->file, opt->vary, opt->sets, opt->jobs,
                           [&](size_t done, size_t total) { progress.update(done, total); }, opt->shard, opt->out);
            if (opt->csv != "-" && opt->json != "-") write_output("-", advise::sweep_table(r));
            if (!opt->csv.empty()) write_output(opt->csv, advise::sweep_csv(r));
            if (!opt->json.empty()) write_output(opt->json, advise::sweep_json(r));
            return kExitOk;
          }};
}

}  // namespace plansim::app
