// plansim search: the memory estimate used for pruning matches the simulated stage memory, the
// search puts TP=8 inside a server for a Megatron-LM 2021 Table 1 row, and it agrees with the
// strategy guidance of SEEDS.md where the physics does ("1–10B: DDP on 8–64 GPUs"; "multi-node IB:
// TP intra-node, DP/PP inter-node").
#include <catch2/catch.hpp>

#include "sim/advise/search.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"

using namespace plansim;
using namespace plansim::advise;

namespace {
const std::string kSrc = PLANSIM_SOURCE_DIR;
}

TEST_CASE("search: the pruning estimate is the simulated stage-0 memory under 1F1B", "[advise]") {
  LoadedScenario s = load_scenario(kSrc + "/scenarios/antipatterns/pipeline-bubble.yaml");
  PlanRun run = simulate_plan(s.scenario, s.topology);
  CHECK(estimate_memory_gib(s.scenario) ==
        Approx(run.report.stages[0].memory.total().value() / 1073741824.0).epsilon(1e-9));
}

TEST_CASE("search: enumeration respects divisibility and the world size", "[advise]") {
  LoadedScenario s = load_scenario(kSrc + "/scenarios/antipatterns/good.yaml");
  const auto plans = enumerate_plans(s.scenario, s.topology);
  REQUIRE(!plans.empty());
  for (const auto& p : plans) {
    const auto& par = p.scenario.parallel;
    CHECK(par.world() == 8);
    CHECK(s.scenario.model.layers % (par.pp * p.scenario.schedule.virtual_stages) == 0);
    CHECK(p.scenario.training.global_batch % (int64_t{p.scenario.training.micro_batch} * par.dp) == 0);
  }
}

TEST_CASE("search: Megatron-LM 2021 Table 1, 18.4B row (256 A100): TP=8 inside a server", "[advise]") {
  // Row: 18.4 B, 48 heads, hidden 6144, 40 layers, TP 8, PP 1, 256 GPUs, batch 1024 (validate/megatron).
  // The 2021 stack has no ZeRO and uses full recompute, so those are pinned. TP is pinned to the paper's
  // 8 as well: with TP free the search ranks TP 4 first (its memory model fits 18.4 B at TP 4 in
  // 73 GiB of 80, ~4 % faster), a plan the paper did not choose. What is checked is the placement:
  // the search must put the TP=8 group inside a server, across servers ranks far below.
  SearchOptions o;
  o.sets = {"model.layers=40", "model.hidden=6144", "model.heads=48", "training.global_batch=1024"};
  o.gpus = 256;
  o.jobs = 2;
  o.only = {{"parallel.zero", {"0"}}, {"training.recompute", {"full"}}, {"parallel.pp", {"1"}},
            {"parallel.tp", {"8"}}, {"training.micro_batch", {"1", "8"}}};
  const SearchResult r = run_search(kSrc + "/validate/megatron/template.yaml", o);
  REQUIRE(!r.ranked.empty());
  const SearchPlan& best = r.ranked.front();
  CHECK(best.scenario.parallel.tp == 8);
  CHECK(best.tp_inside_server);
  // Every TP=8 plan with TP inside a server beats every TP=8 plan with TP across servers.
  double worst_inside = 1e30, best_across = 0;
  for (const auto& p : r.ranked) {
    if (p.scenario.parallel.tp != 8) continue;
    if (p.tp_inside_server) worst_inside = std::min(worst_inside, p.metrics.tokens_per_s);
    else best_across = std::max(best_across, p.metrics.tokens_per_s);
  }
  CHECK(best_across > 0);
  CHECK(worst_inside > best_across);
}

TEST_CASE("search: strategy guidance, a 1.3B model on 16 GPUs is best as plain data parallelism", "[advise]") {
  SearchOptions o;
  o.gpus = 16;
  o.jobs = 2;
  o.only = {{"training.recompute", {"none"}}, {"training.micro_batch", {"2"}}, {"parallel.zero", {"0", "1"}}};
  const SearchResult r = run_search(kSrc + "/scenarios/antipatterns/good.yaml", o);
  REQUIRE(!r.ranked.empty());
  const auto& best = r.ranked.front().scenario.parallel;
  CHECK(best.tp == 1);
  CHECK(best.pp == 1);
  CHECK(best.dp == 16);
  // Ranked best first.
  for (size_t i = 1; i < r.ranked.size(); ++i)
    CHECK(r.ranked[i - 1].metrics.tokens_per_s >= r.ranked[i].metrics.tokens_per_s);
}

TEST_CASE("search: 1000 plans on 32 GPUs", "[advise][bench][search]") {
  // README "Benchmarks": build/tests/plansim_tests "[bench][search]"
  SearchOptions o;
  o.gpus = 32;
  o.jobs = 2;
  const SearchResult r = run_search(kSrc + "/scenarios/antipatterns/good.yaml", o);
  WARN(r.simulated << " plans simulated (" << r.enumerated << " enumerated, " << r.pruned << " pruned) in "
                   << r.wall_s << " s wall");
  CHECK(r.simulated >= 1000);
}
