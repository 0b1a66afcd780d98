#include "sim/advise/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/advise/placement.hpp"
#include "sim/advise/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/model/memory.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/report/simulate_plan.hpp"
#include "sim/sched/holding.hpp"
#include "sim/sched/registry.hpp"

namespace plansim::advise {

namespace {

constexpr double kGiB = 1073741824.0;
constexpr std::array<Dim, 5> kDefaultOrder{Dim::tp, Dim::cp, Dim::ep, Dim::dp, Dim::pp};
constexpr std::array<Dim, 5> kDpInnerOrder{Dim::dp, Dim::cp, Dim::ep, Dim::tp, Dim::pp};

bool tp_divides(const ModelSpec& m, int tp) {
  return m.heads % tp == 0 && (m.kv_heads % tp == 0 || tp % m.kv_heads == 0) && m.ffn_hidden % tp == 0 &&
         m.vocab % tp == 0;
}

std::vector<std::string> sets_of(const Scenario& s) {
  const auto& p = s.parallel;
  return {fmt::format("parallel.tp={}", p.tp),
          fmt::format("parallel.pp={}", p.pp),
          fmt::format("parallel.dp={}", p.dp),
          fmt::format("parallel.cp={}", p.cp),
          fmt::format("parallel.ep={}", p.ep),
          fmt::format("parallel.zero={}", p.zero),
          "parallel.order=" + order_value(p.order),
          fmt::format("training.micro_batch={}", s.training.micro_batch),
          fmt::format("training.recompute={}", to_string(s.training.recompute)),
          "schedule.kind=" + s.schedule.kind,
          fmt::format("schedule.virtual_stages={}", s.schedule.virtual_stages)};
}

}  // namespace

double estimate_memory_gib(const Scenario& s) {
  // Stage 0's activations as its schedule order keeps them (1F1B: min(pp, m) chunks; interleaved:
  // min(m·v, pp·v + pp − 1); zero-bubble / DualPipe: full and weight-gradient shares, holding.hpp).
  const auto sched = make_schedule(s.schedule.kind);
  const StageOrders orders = sched->build({s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages});
  const PipelineLayout lay = sched->layout({s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages});
  const auto chunk_layers = layers_per_chunk(lay, LayerPartition(s.model.layers, lay.pieces(), s.parallel.stage_layers,
                                                                    s.parallel.split_embedding, s.parallel.split_loss));
  const StageHolding held = stage_holdings(orders, sched->splits_backward(), &chunk_layers)[0];
  const MemoryBreakdown mem = stage_memory(s, stage_memory_input(s, 0, held));
  return mem.total().value() / kGiB;
}

std::vector<SearchPlan> enumerate_plans(const Scenario& base, const Topology& topo) {
  const int world = static_cast<int>(topo.num_gpus());
  const int island = island_size(topo);
  const ModelSpec& m = base.model;
  std::vector<SearchPlan> out;
  std::vector<int> cps{1};
  if (m.seq_len >= 16384) cps = {1, 2, 4, 8};
  for (int tp = 1; tp <= std::min(island, world); tp *= 2) {
    if (world % tp != 0 || !tp_divides(m, tp)) continue;
    for (int pp = 1; pp <= std::min(m.layers, world / tp); ++pp) {
      if ((world / tp) % pp != 0 || m.layers % pp != 0) continue;
      for (int cp : cps) {
        if ((world / (tp * pp)) % cp != 0) continue;
        if (m.seq_len % (cp * (base.parallel.sequence_parallel ? tp : 1)) != 0) continue;
        const int dp = world / (tp * pp * cp);
        std::vector<int> eps{1};
        if (m.moe)
          for (int ep = 2; ep <= dp; ep *= 2)
            if (dp % ep == 0 && m.moe->experts % ep == 0) eps.push_back(ep);
        for (int ep : eps)
          for (int mb : {1, 2, 4, 8}) {
            if (base.training.global_batch % (int64_t{mb} * dp) != 0) continue;
            const int micro = static_cast<int>(base.training.global_batch / (int64_t{mb} * dp));
            std::vector<std::pair<std::string, int>> scheds{{"1f1b", 1}};
            if (pp > 1 && m.layers % (2 * pp) == 0 && micro % pp == 0) scheds.emplace_back("interleaved", 2);
            for (const auto& [kind, v] : scheds)
              for (Recompute rec : {Recompute::none, Recompute::selective, Recompute::full})
                for (int zero : {0, 1, 3}) {
                  if (zero > 0 && dp == 1) continue;
                  for (const auto& order : {kDefaultOrder, kDpInnerOrder}) {
                    if (order == kDpInnerOrder && (tp == 1 || dp == 1)) continue;
                    SearchPlan plan;
                    plan.scenario = base;
                    auto& p = plan.scenario.parallel;
                    p.tp = tp, p.pp = pp, p.dp = dp, p.cp = cp, p.ep = ep, p.zero = zero, p.order = order;
                    plan.scenario.training.micro_batch = mb;
                    plan.scenario.training.recompute = rec;
                    plan.scenario.schedule.kind = kind;
                    plan.scenario.schedule.virtual_stages = v;
                    plan.sets = sets_of(plan.scenario);
                    out.push_back(std::move(plan));
                  }
                }
          }
      }
    }
  }
  return out;
}

SearchResult run_search(const std::filesystem::path& scenario, const SearchOptions& options,
                        const ProgressFn& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  SearchResult r;
  LoadedScenario base = load_scenario(scenario, options.sets);
  r.scenario = base.scenario.name;
  // With --gpus the topology is re-instantiated for that many GPUs; the loader needs a consistent plan
  // for it, so a DP-only stand-in loads the cluster (the model and training settings stay the base's).
  std::vector<std::string> topo_sets = options.sets;
  if (options.gpus > 0) {
    const int per = static_cast<int>(base.topology.topology_gpus()) / std::max(1, base.topology.num_hosts());
    if (per <= 0 || options.gpus % per != 0)
      throw ConfigError(SourcePos{"--gpus", 0, 0},
                        fmt::format("{} GPUs is not a whole number of {}-GPU servers", options.gpus, per));
    for (const std::string& s : {fmt::format("nodes={}", options.gpus / per), std::string("parallel.tp=1"),
                                 std::string("parallel.pp=1"), std::string("parallel.cp=1"), std::string("parallel.ep=1"),
                                 fmt::format("parallel.dp={}", options.gpus), std::string("gpus=~"), std::string("schedule.kind=1f1b"),
                                 std::string("schedule.virtual_stages=1"),
                                 fmt::format("training.global_batch={}", options.gpus),
                                 std::string("training.micro_batch=1")})
      topo_sets.push_back(s);
    LoadedScenario probe = load_scenario(scenario, topo_sets);
    base.topology = std::move(probe.topology);
    base.scenario.nodes = probe.scenario.nodes;
  }
  r.gpus = static_cast<int>(base.topology.num_gpus());
  std::vector<SearchPlan> all = enumerate_plans(base.scenario, base.topology);
  static const std::vector<std::string> kSearched = {
      "parallel.tp",   "parallel.pp",          "parallel.dp",        "parallel.cp",   "parallel.ep",
      "parallel.zero", "parallel.order",       "training.micro_batch", "training.recompute",
      "schedule.kind", "schedule.virtual_stages"};
  for (const auto& only : options.only) {
    // Named, not structured bindings: clang 14 cannot capture those in a lambda.
    const std::string& key = only.first;
    const std::vector<std::string>& values = only.second;
    if (std::find(kSearched.begin(), kSearched.end(), key) == kSearched.end()) {
      throw ConfigError(SourcePos{"--only " + key, 0, 0},
                        fmt::format("'{}' is not a key the search varies ({})", key, fmt::join(kSearched, ", ")));
    }
    // A value no enumerated plan has would leave nothing to rank, and nothing to do with memory.
    std::vector<std::string> tried;
    for (const auto& p : all)
      if (const std::string v = value_of(p.sets, key); std::find(tried.begin(), tried.end(), v) == tried.end())
        tried.push_back(v);
    for (const auto& v : values)
      if (std::find(tried.begin(), tried.end(), v) == tried.end())
        throw ConfigError(SourcePos{"--only " + key + "=" + v, 0, 0},
                          tried.empty() ? std::string("the search finds no valid plan for this model on this cluster")
                                        : fmt::format("no plan the search tries has {}={} (it tries {})", key, v,
                                                      fmt::join(tried, ", ")));
    std::erase_if(all, [&key, &values](const SearchPlan& p) {
      return std::find(values.begin(), values.end(), value_of(p.sets, key)) == values.end();
    });
  }
  if (all.empty() && !options.only.empty())
    throw ConfigError(SourcePos{"--only", 0, 0}, "no plan the search tries has all the --only values together");
  r.enumerated = all.size();
  if (options.gpus > 0)
    for (auto& p : all) p.sets.insert(p.sets.begin(), fmt::format("nodes={}", *base.scenario.nodes));
  const double capacity = base.topology.gpu_spec().hbm_capacity.value() / kGiB;
  std::vector<SearchPlan> fit;
  for (auto& p : all) {
    p.estimated_memory_gib = estimate_memory_gib(p.scenario);
    if (p.estimated_memory_gib <= capacity) fit.push_back(std::move(p));
  }
  r.pruned = r.enumerated - fit.size();
  if (options.max_plans > 0 && fit.size() > options.max_plans) fit.resize(options.max_plans);
  r.simulated = fit.size();
  const int jobs = std::max(1, options.jobs);
  std::vector<std::unique_ptr<LoadedScenario>> workers(static_cast<size_t>(jobs));
  std::vector<char> ok(fit.size(), 0);
  parallel_for(
      fit.size(), jobs,
      [&](size_t w, size_t i) {
        if (!workers[w]) workers[w] = std::make_unique<LoadedScenario>(load_scenario(scenario, topo_sets));
        const Topology& topo = workers[w]->topology;
        PlanRun run = simulate_plan(fit[i].scenario, topo, SimulateOptions{true, false});
        fit[i].metrics = metrics_of(run.report);
        fit[i].tp_inside_server = place_group(fit[i].scenario, topo, {Dim::tp}).islands == 1;
        ok[i] = 1;
      },
      progress);
  for (size_t i = 0; i < fit.size(); ++i) {
    if (!ok[i]) continue;
    if (fit[i].metrics.oom) {
      ++r.oom;
      continue;
    }
    r.ranked.push_back(std::move(fit[i]));
  }
  std::stable_sort(r.ranked.begin(), r.ranked.end(), [](const SearchPlan& a, const SearchPlan& b) {
    return a.metrics.tokens_per_s > b.metrics.tokens_per_s;
  });
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace plansim::advise
