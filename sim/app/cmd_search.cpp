// `plansim search FILE [--gpus N] [--top K] [--json FILE] [-j N] [--set k=v]...`: the fastest plans
// for the scenario's model and cluster, with what separates them.
#include <memory>

#include "sim/api/commands.hpp"
#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/core/limits.hpp"
#include "sim/app/progress.hpp"

namespace plansim::app {
namespace {

struct SearchCliOptions {
  std::string file;
  std::vector<std::string> sets;
  int gpus = 0;
  int top = 10;
  std::string json;
  int jobs = 0;
  size_t max_plans = 0;
  std::vector<std::string> only;
};

}  // namespace

Command add_search_command(CLI::App& app) {
  auto opt = std::make_shared<SearchCliOptions>();
  CLI::App* sub = app.add_subcommand("search", "enumerate parallel plans that fit in memory and rank them by tokens/s");
  sub->add_option("file", opt->file, "scenario YAML (its model, training batch and cluster)")->required();
  sub->add_option("--set", opt->sets, "override a scenario key first (repeatable)");
  add_calibration_option(sub, opt->sets);  // after --set, whose callback assigns the list
  sub->add_option("--gpus", opt->gpus, "GPUs to plan for (a whole number of servers; default: the scenario's)")
      ->check(count_in(1, limits::kMaxGpus));
  sub->add_option("--top", opt->top, "plans to print (default 10)")->check(count_in(1, limits::kMaxTop));
  sub->add_option("--json", opt->json, "write the top plans as JSON to FILE ('-' = stdout, replacing the text)");
  sub->add_option("-j,--jobs", opt->jobs, "parallel simulations (0 = hardware threads)")
      ->check(count_in(0, limits::kMaxJobs));
  sub->add_option("--max-plans", opt->max_plans, "simulate at most N plans after pruning (0 = all)")
      ->check(count_in(0, limits::kMaxTop));
  sub->add_option("--only", opt->only, "restrict a searched key, e.g. --only parallel.zero=0,1 (repeatable)");
  return {sub, [opt] {
            check_output_path("--json", opt->json);
            Progress progress("search");
            const advise::SearchResult r =
                api::search({opt->file, opt->sets, opt->gpus, opt->top, opt->jobs, opt->max_plans, opt->only},
                            [&](size_t done, size_t total) { progress.update(done, total); });
            if (opt->json != "-") write_output("-", advise::search_text(r, opt->top));
            if (!opt->json.empty()) write_output(opt->json, advise::search_json(r, opt->top));
            return kExitOk;
          }};
}

}  // namespace plansim::app
