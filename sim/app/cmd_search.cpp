// `plansim search FILE [--gpus N] [--top K] [--json FILE] [-j N] [--set k=v]... [--no-prune]
// [--shard K/N] [--out FILE]`: the fastest plans for the scenario's model and cluster, with what
// separates them (exact pruning by the lower bound, sharding and resuming: advise/search.hpp).
#include <spdlog/spdlog.h>

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
  bool no_prune = false;
  std::string shard;
  std::string out;
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
  sub->add_flag("--no-prune", opt->no_prune,
                "simulate every plan that fits in memory (no pruning by the lower bound; same top plans, slower)");
  sub->add_option("--shard", opt->shard, "run shard K of N (K/N, 0 <= K < N): candidates I with I mod N = K");
  sub->add_option("--out", opt->out,
                  "append each simulated plan to this results file (JSON lines) and resume from it; merge shards' "
                  "files with `plansim merge`");
  return {sub, [opt] {
            check_output_path("--json", opt->json);
            if (!opt->out.empty()) check_output_path("--out", opt->out);
            Progress progress("search");
            api::SearchRequest req;
            req.scenario = opt->file;
            req.sets = opt->sets;
            req.gpus = opt->gpus;
            req.top = opt->top;
            req.jobs = opt->jobs;
            req.max_plans = opt->max_plans;
            req.only = opt->only;
            req.prune = !opt->no_prune;
            req.shard = opt->shard;
            req.out = opt->out;
            const advise::SearchResult r =
                api::search(req, [&](size_t done, size_t total) { progress.update(done, total); });
            spdlog::info("search: {} simulated, {} pruned by the lower bound, in {:.1f} s wall", r.simulated,
                         r.pruned_bound, r.wall_s);
            if (opt->json != "-") write_output("-", advise::search_text(r, opt->top));
            if (!opt->json.empty()) write_output(opt->json, advise::search_json(r, opt->top));
            return kExitOk;
          }};
}

}  // namespace plansim::app
