#pragma once
// `plansim search`: enumerate TP × PP × DP × CP × EP × micro-batch × schedule × recompute × ZeRO ×
// rank order for a model on a cluster, drop the combinations the loader would reject and those the
// memory model (model/memory.hpp, stage 0 with the schedule's in-flight micro-batches) says cannot fit,
// simulate the rest in parallel (one Topology per worker) and rank them by tokens/s. Plans the
// simulation itself reports as OOM are dropped too.
//
// Exact pruning (on unless SearchOptions::prune is off): every plan that fits gets the proven lower
// bound on its iteration time (report/plan_bound.hpp), hence an upper bound on its tokens/s (tokens
// per iteration are the same for every plan). Plans are simulated in order of that bound, `jobs` at
// a time; before each, the search stops once the plan's upper bound is below the tokens/s of the
// `top`-th best plan simulated so far: no plan left can enter the top `top` (ties, broken by
// enumeration order, are simulated), so the top `top` is the exhaustive search's. Tokens/s is
// monotone in iteration time, so the objective allows it; the ranking below the top `top` is not
// complete.
//
// Sharding (SearchOptions::shard): candidate I (enumeration order, after --only) belongs to shard
// I mod N. A shard prunes against its own top `top`; every plan of the global top `top` is in the
// top `top` of its shard, so merging the shards' simulated plans and ranking them again gives the
// one-process top `top` (merge_search). With `out`, each finished plan is appended to a results file
// (advise/results_file.hpp) that a rerun resumes from.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/advise/point_metrics.hpp"
#include "sim/advise/point_runner.hpp"
#include "sim/advise/results_file.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::advise {

struct SearchOptions {
  std::vector<std::string> sets;  // applied to the base scenario first
  int gpus = 0;                   // 0: the scenario's GPU count; else servers = gpus / GPUs per server
  int top = 10;
  int jobs = 1;
  size_t max_plans = 0;           // 0: all; else keep the first N candidates (in enumeration order)
  // Restrict the enumeration: a plan is kept only if, for every entry, its --set value of `key` is
  // one of `values` (e.g. parallel.zero=0 for a stack without ZeRO). Keys are the search's own.
  std::vector<std::pair<std::string, std::vector<std::string>>> only;
  bool prune = true;     // order by the lower bound and stop when it cannot beat the top-th plan
  Shard shard;           // this process's slice of the candidates
  std::string out;       // results file to append each plan to and resume from ("" = none)
};

struct SearchPlan {
  size_t index = 0;                // candidate index (enumeration order, after --only)
  std::string label;               // "TP8 PP1 DP32 mb1 1f1b rc:full ZeRO-0"
  double bound_s = 0;              // lower bound on the iteration time (0 when not computed)
  Scenario scenario;
  std::vector<std::string> sets;  // the --set overrides reproducing this plan from the base scenario
  double estimated_memory_gib = 0;
  PointMetrics metrics;
  bool tp_inside_server = true;
};

struct SearchResult {
  std::string scenario;
  int gpus = 0;
  size_t enumerated = 0;  // combinations the loader accepts
  size_t pruned = 0;      // removed by the memory model before simulation
  size_t pruned_bound = 0;  // not simulated: their bound could not beat the top-th plan
  size_t simulated = 0;     // simulated (or read back from the results file)
  size_t oom = 0;         // simulated but over memory
  double wall_s = 0;
  std::vector<SearchPlan> ranked;  // best first, fitting plans only
};

// Every valid candidate plan for `base` on `gpus` GPUs, in a fixed order (before the memory prune).
std::vector<SearchPlan> enumerate_plans(const Scenario& base, const Topology& topo);

// Per-rank memory estimate of stage 0 (the largest activation stash under 1F1B), GiB.
double estimate_memory_gib(const Scenario& s);

SearchResult run_search(const std::filesystem::path& scenario, const SearchOptions& options,
                        const ProgressFn& progress = {});

// The shards' results files (check_shards) ranked as one run: the same SearchResult as the
// one-process search for the top plans; counts are the shards' sums (with pruning, each shard
// simulates against its own top, so more plans than one process would).
SearchResult merge_search(const std::vector<ShardFile>& shards, int& top);

// "TP8 PP1 DP32 mb1 1f1b rc:full ZeRO-0".
std::string plan_label(const Scenario& s);

// The wall time is not in the text (merge prints the same text as a one-process run).
std::string search_text(const SearchResult& r, int top);
std::string search_json(const SearchResult& r, int top);

}  // namespace plansim::advise
