#include "sim/advise/search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <functional>
#include <limits>
#include <optional>

#include "sim/advise/placement.hpp"
#include "sim/advise/sweep.hpp"
#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/model/memory.hpp"
#include "sim/plan/a2a_overlap.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/report/plan_bound.hpp"
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
  std::vector<std::string> out{fmt::format("parallel.tp={}", p.tp),
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
  if (p.expert_tp > 0) out.push_back(fmt::format("parallel.expert_tp={}", p.expert_tp));
  return out;
}

// Best first: tokens/s, then enumeration order (the same order however the plans were found).
void rank_plans(std::vector<SearchPlan>& plans) {
  std::sort(plans.begin(), plans.end(), [](const SearchPlan& a, const SearchPlan& b) {
    if (a.metrics.tokens_per_s != b.metrics.tokens_per_s) return a.metrics.tokens_per_s > b.metrics.tokens_per_s;
    return a.index < b.index;
  });
}

nlohmann::ordered_json result_line(const SearchPlan& p) {
  nlohmann::ordered_json j;
  j["index"] = p.index;
  j["plan"] = p.label;
  j["sets"] = p.sets;
  j["bound_s"] = p.bound_s;
  j["estimated_memory_GiB"] = p.estimated_memory_gib;
  j["tp_inside_server"] = p.tp_inside_server;
  j["metrics"] = nlohmann::ordered_json::parse(metrics_json(p.metrics));
  return j;
}

// What identifies a search's results (a rerun must match it to resume; shards to merge).
nlohmann::ordered_json results_header(const std::filesystem::path& scenario, const SearchOptions& o,
                                      const SearchResult& r) {
  nlohmann::ordered_json run;
  run["scenario_fnv"] = file_hash(scenario.string());
  run["sets"] = o.sets;
  run["gpus"] = o.gpus;
  run["top"] = o.top;
  run["max_plans"] = o.max_plans;
  run["prune"] = o.prune;
  nlohmann::ordered_json only = nlohmann::ordered_json::array();
  for (const auto& [k, v] : o.only) only.push_back({k, v});
  run["only"] = only;
  nlohmann::ordered_json h;
  h["plansim_results"] = 1;
  h["command"] = "search";
  h["run"] = run;
  h["shard"] = o.shard.text();
  h["meta"] = {{"scenario", r.scenario}, {"gpus", r.gpus}, {"top", o.top}};
  return h;
}

}  // namespace

double estimate_memory_gib(const Scenario& s) {
  // Stage 0's activations as its schedule order keeps them (1F1B: min(pp, m) chunks; interleaved:
  // min(m·v, pp·v + pp − 1); zero-bubble / DualPipe: full and weight-gradient shares, holding.hpp).
  const auto sched = make_schedule(s.schedule.kind);
  StageOrders orders = sched->build({s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages});
  if (s.schedule.moe_a2a_overlap) pair_for_a2a_overlap(orders);  // as compile_plan runs it
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
        // MoE parallel folding (expert_tp 1) where the base asks for it and this plan can fold (TP with
        // sequence parallelism): EP spans the stage's TP, CP and DP ranks, else it stays inside DP.
        const bool fold = m.moe && base.parallel.expert_tp == 1 && base.parallel.sequence_parallel && tp > 1;
        const int ep_span = fold ? tp * cp * dp : dp;
        std::vector<int> eps{1};
        if (m.moe)
          for (int ep = 2; ep <= ep_span; ep *= 2)
            if (ep_span % ep == 0 && m.moe->experts % ep == 0) eps.push_back(ep);
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
                    p.expert_tp = fold ? 1 : 0;  // 0: experts split like the dense MLP (expert_tp = tp)
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
    // Settings that need more than one GPU per group are the plans' own, not the cluster's.
    topo_sets.push_back("parallel.sequence_parallel=false");
    topo_sets.push_back("schedule.moe_a2a_overlap=false");
    if (base.scenario.parallel.expert_tp > 0) topo_sets.push_back("parallel.expert_tp=1");
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
  for (size_t i = 0; i < all.size(); ++i) {
    all[i].index = i;
    all[i].label = plan_label(all[i].scenario);
  }
  std::erase_if(all, [&](const SearchPlan& p) { return !options.shard.has(p.index); });
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

  std::optional<ResultsFile> file;
  if (!options.out.empty()) file.emplace(options.out, results_header(scenario, options, r));
  const auto* done = file ? &file->done() : nullptr;
  auto recorded = [&](size_t index) -> const nlohmann::json* {
    if (done == nullptr) return nullptr;
    const auto it = done->find(index);
    return it == done->end() ? nullptr : &it->second;
  };

  const int jobs = std::max(1, options.jobs);
  std::vector<std::unique_ptr<LoadedScenario>> workers(static_cast<size_t>(jobs));
  auto topology = [&](size_t w) -> const Topology& {
    if (!workers[w]) workers[w] = std::make_unique<LoadedScenario>(load_scenario(scenario, topo_sets));
    return workers[w]->topology;
  };
  // The order plans are simulated in: by lower bound (then enumeration order) when pruning.
  std::vector<size_t> order(fit.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (options.prune) {
    parallel_for(fit.size(), jobs, [&](size_t w, size_t i) {
      if (const auto* line = recorded(fit[i].index)) fit[i].bound_s = line->at("bound_s").get<double>();
      else fit[i].bound_s = bound_plan(fit[i].scenario, topology(w)).iteration.seconds();
    });
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return fit[a].bound_s < fit[b].bound_s; });
  }
  const int top = std::max(1, options.top);
  std::vector<double> best;  // tokens/s of the simulated plans that fit
  std::vector<char> ok(fit.size(), 0);
  size_t next = 0, finished = 0;
  while (next < order.size()) {
    // The wave: the next plans whose upper bound on tokens/s can still reach the top.
    double kth = -1;
    if (options.prune && best.size() >= static_cast<size_t>(top)) {
      std::nth_element(best.begin(), best.begin() + (top - 1), best.end(), std::greater<>());
      kth = best[static_cast<size_t>(top - 1)];
    }
    std::vector<size_t> wave;
    while (next < order.size() && wave.size() < static_cast<size_t>(jobs)) {
      const SearchPlan& p = fit[order[next]];
      const double upper = p.bound_s > 0 ? p.scenario.tokens_per_iteration() / p.bound_s
                                         : std::numeric_limits<double>::infinity();
      if (upper < kth) break;
      wave.push_back(order[next++]);
    }
    if (wave.empty()) break;
    parallel_for(wave.size(), jobs, [&](size_t w, size_t k) {
      SearchPlan& p = fit[wave[k]];
      if (const auto* line = recorded(p.index)) {
        p.metrics = metrics_from_json(line->at("metrics").dump());
        p.tp_inside_server = line->at("tp_inside_server").get<bool>();
      } else {
        const Topology& topo = topology(w);
        PlanRun run = simulate_plan(p.scenario, topo, SimulateOptions{true, false});
        p.metrics = metrics_of(run.report);
        p.tp_inside_server = place_group(p.scenario, topo, {Dim::tp}).islands == 1;
        if (file) file->append(result_line(p));
      }
      ok[wave[k]] = 1;
    });
    for (size_t i : wave)
      if (!fit[i].metrics.oom) best.push_back(fit[i].metrics.tokens_per_s);
    finished += wave.size();
    if (progress) progress(finished, order.size());
  }
  r.pruned_bound = order.size() - next;
  for (size_t i = 0; i < fit.size(); ++i) {
    if (!ok[i]) continue;
    ++r.simulated;
    if (fit[i].metrics.oom) {
      ++r.oom;
      continue;
    }
    r.ranked.push_back(std::move(fit[i]));
  }
  rank_plans(r.ranked);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (file) {
    nlohmann::ordered_json d;
    d["done"] = true;
    d["enumerated"] = r.enumerated;
    d["pruned_memory"] = r.pruned;
    d["pruned_bound"] = r.pruned_bound;
    d["simulated"] = r.simulated;
    d["oom"] = r.oom;
    d["wall_s"] = r.wall_s;
    file->append(d);
  }
  return r;
}

SearchResult merge_search(const std::vector<ShardFile>& shards, int& top) {
  check_shards(shards);
  const auto& meta = shards.front().header.at("meta");
  if (shards.front().header.at("command") != "search")
    throw ConfigError(SourcePos{shards.front().path, 1, 1}, "not the results of a search");
  SearchResult r;
  r.scenario = meta.at("scenario").get<std::string>();
  r.gpus = meta.at("gpus").get<int>();
  top = meta.at("top").get<int>();
  for (const ShardFile& f : shards) {
    r.enumerated += f.done.at("enumerated").get<size_t>();
    r.pruned += f.done.at("pruned_memory").get<size_t>();
    r.pruned_bound += f.done.at("pruned_bound").get<size_t>();
    r.simulated += f.done.at("simulated").get<size_t>();
    r.oom += f.done.at("oom").get<size_t>();
    r.wall_s += f.done.at("wall_s").get<double>();
    for (const auto& [index, line] : f.points) {
      SearchPlan p;
      try {
        p.index = index;
        p.label = line.at("plan").get<std::string>();
        p.sets = line.at("sets").get<std::vector<std::string>>();
        p.bound_s = line.at("bound_s").get<double>();
        p.estimated_memory_gib = line.at("estimated_memory_GiB").get<double>();
        p.tp_inside_server = line.at("tp_inside_server").get<bool>();
        p.metrics = metrics_from_json(line.at("metrics").dump());
      } catch (const nlohmann::json::exception& e) {
        throw ConfigError(SourcePos{f.path, 0, 0}, fmt::format("point {}: {}", index, e.what()));
      }
      if (!p.metrics.oom) r.ranked.push_back(std::move(p));
    }
  }
  rank_plans(r.ranked);
  return r;
}

}  // namespace plansim::advise
