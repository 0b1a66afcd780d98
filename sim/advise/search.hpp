#pragma once
// `plansim search`: enumerate TP × PP × DP × CP × EP × micro-batch × schedule × recompute × ZeRO ×
// rank order for a model on a cluster, drop the combinations the loader would reject and those the
// memory model (model/memory.hpp, stage 0 with the schedule's in-flight micro-batches) says cannot fit,
// simulate the rest in parallel (one Topology per worker) and rank them by tokens/s. Plans the
// simulation itself reports as OOM are dropped too.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/advise/point_metrics.hpp"
#include "sim/advise/point_runner.hpp"
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
};

struct SearchPlan {
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
  size_t simulated = 0;
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

std::string search_text(const SearchResult& r, int top);
std::string search_json(const SearchResult& r, int top);

}  // namespace plansim::advise
