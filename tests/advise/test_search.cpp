// plansim search: the memory estimate used for pruning matches the simulated stage memory, the
// search finds TP=8 inside a server for Megatron-LM 2021 Table 1 rows (TP free; TP and PP free), and
// it agrees with the strategy guidance of SEEDS.md where the physics does ("1–10B: DDP on 8–64 GPUs";
// "multi-node IB: TP intra-node, DP/PP inter-node"; "100B–1T: 3D").
#include <algorithm>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "sim/advise/placement.hpp"
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

TEST_CASE("search: MoE parallel folding asked by the base widens EP to the stage's TP, CP and DP ranks", "[advise]") {
  const std::string moe = kSrc + "/scenarios/dualpipe-moe-64-h100.yaml";
  const std::vector<std::string> fold{"parallel.tp=2", "parallel.dp=4", "parallel.ep=8", "parallel.expert_tp=1",
                                      "parallel.sequence_parallel=true", "schedule.kind=1f1b"};
  LoadedScenario folded = load_scenario(moe, fold);
  bool ep_wider_than_dp = false;
  for (const auto& p : enumerate_plans(folded.scenario, folded.topology)) {
    const auto& par = p.scenario.parallel;
    const bool folds = par.tp > 1;  // the base has sequence parallelism
    CHECK(par.expert_tp == (folds ? 1 : 0));
    CHECK((folds ? par.tp * par.cp * par.dp : par.dp) % par.ep == 0);
    ep_wider_than_dp = ep_wider_than_dp || par.ep > par.dp;
    const bool says_fold = std::find(p.sets.begin(), p.sets.end(), "parallel.expert_tp=1") != p.sets.end();
    CHECK(says_fold == folds);
    CHECK((plan_label(p.scenario).find(" ETP1") != std::string::npos) == (folds && par.ep > 1));
  }
  CHECK(ep_wider_than_dp);
  // A base with experts split like the dense MLP (expert_tp = tp, said explicitly) keeps EP inside DP at every tp.
  std::vector<std::string> unfold = fold;
  unfold[3] = "parallel.expert_tp=2";
  unfold[1] = "parallel.dp=4", unfold[2] = "parallel.ep=4";
  LoadedScenario split = load_scenario(moe, unfold);
  for (const auto& p : enumerate_plans(split.scenario, split.topology)) {
    CHECK(p.scenario.parallel.expert_tp == 0);
    CHECK(p.scenario.parallel.dp % p.scenario.parallel.ep == 0);
  }
}

TEST_CASE("search: Megatron-LM 2021 Table 1, 18.4B row (256 A100): TP=8 inside a server", "[advise]") {
  // Row: 18.4 B, 48 heads, hidden 6144, 40 layers, TP 8, PP 1, 256 GPUs, batch 1024 (validate/megatron).
  // TP is free, PP stays the row's 1 (the next test frees both); the 2021 stack has no ZeRO and uses
  // full recompute. Why TP 8 wins here is memory: the 2021 fp16 optimizer holds 20 B/param
  // (template.yaml: fp32 main params and main grads, Adam m and v, fp16 weights and grads), so TP 4
  // would need 4.6 B params x 20 B = 86 GiB of 80; with ZeRO's 16 B/param it would fit and run faster
  // (its TP all-reduces cost (t-1)/t per layer on half as many ranks per layer).
  const std::string tmpl = kSrc + "/validate/megatron/template.yaml";
  const std::vector<std::string> row = {"model.layers=40", "model.hidden=6144", "model.heads=48",
                                        "training.global_batch=1024"};
  SearchOptions o;
  o.sets = row;
  o.gpus = 256;
  o.jobs = 2;
  o.only = {{"parallel.zero", {"0"}}, {"training.recompute", {"full"}}, {"parallel.pp", {"1"}},
            {"training.micro_batch", {"1"}}};
  o.prune = false;  // compares every plan with TP inside a server against every plan with TP across
  const SearchResult r = run_search(tmpl, o);
  REQUIRE(!r.ranked.empty());
  const SearchPlan& best = r.ranked.front();
  CHECK(best.scenario.parallel.tp == 8);
  CHECK(best.tp_inside_server);
  CHECK(r.pruned > 0);
  for (const auto& p : r.ranked) CHECK(p.scenario.parallel.tp == 8);  // TP 1, 2, 4 do not fit at PP 1
  // Every plan with TP inside a server beats every plan with TP across servers.
  double worst_inside = 1e30, best_across = 0;
  for (const auto& p : r.ranked) {
    if (p.tp_inside_server) worst_inside = std::min(worst_inside, p.metrics.tokens_per_s);
    else best_across = std::max(best_across, p.metrics.tokens_per_s);
  }
  CHECK(best_across > 0);
  CHECK(worst_inside > best_across);
  // The reason is memory: TP 4 PP 1 is over 80 GiB with 20 B/param, under it with 16 B/param, where
  // the simulation ranks it above TP 8.
  std::vector<std::string> tp4 = row;
  for (const char* kv : {"nodes=32", "parallel.tp=4", "parallel.dp=64"}) tp4.emplace_back(kv);
  LoadedScenario s20 = load_scenario(tmpl, tp4);
  CHECK(estimate_memory_gib(s20.scenario) > 80.0);
  tp4.emplace_back("training.optimizer_bytes=12");
  LoadedScenario s16 = load_scenario(tmpl, tp4);
  CHECK(estimate_memory_gib(s16.scenario) < 80.0);
  CHECK(simulate_plan(s16.scenario, s16.topology).report.tokens_per_s > best.metrics.tokens_per_s);
}

TEST_CASE("search: one pipeline of the 145.6B row (64 A100, batch 32): TP 8 x PP 8 inside servers", "[advise]") {
  // Narayanan et al. 2021 Fig. 13 (162.2B on 64 GPUs, t x p = 64): t = 8, p = 8 is best. Its architecture
  // and values are not in our reference, so the 145.6B Table 1 architecture (96 heads, hidden 12288,
  // 80 layers; its row runs t = 8, p = 8) stands in, as one pipeline at a small batch. With 20 B/param
  // only t x p = 64 fits (2.9 TB of model state), so TP and PP trade: TP 4 needs 16 stages, whose
  // bubble (15 of 32 micro-batches) costs more than TP 8's all-reduces; TP 16 would cross servers.
  // (At 128 sequences per pipeline the bubble shrinks and the simulation ranks TP 4 x PP 16 ~3 % ahead.)
  SearchOptions o;
  o.sets = {"model.layers=80", "model.hidden=12288", "model.heads=96", "training.global_batch=32"};
  o.gpus = 64;
  o.jobs = 2;
  o.only = {{"parallel.zero", {"0"}}, {"training.recompute", {"full"}}};
  o.prune = false;  // the best TP 4 plan may be far below the top: every plan simulated
  const SearchResult r = run_search(kSrc + "/validate/megatron/template.yaml", o);
  REQUIRE(!r.ranked.empty());
  const SearchPlan& best = r.ranked.front();
  CHECK(best.scenario.parallel.tp == 8);
  CHECK(best.scenario.parallel.pp == 8);
  CHECK(best.tp_inside_server);
  double best_tp4 = 0;
  for (const auto& p : r.ranked) {
    CHECK(p.scenario.parallel.tp * p.scenario.parallel.pp == 64);  // memory: nothing smaller fits
    if (p.scenario.parallel.tp == 4) best_tp4 = std::max(best_tp4, p.metrics.tokens_per_s);
  }
  CHECK(best_tp4 > 0);
  // TP 8's margin over TP 4: ~10 % (9.7 % since its ~48 MiB TP all-reduces pay the Simple ring's per-slice
  // latency, nccl_channels.hpp latency_rounds, as the A100 nccl-tests table's 32-64 MiB rows measure).
  CHECK(best.metrics.tokens_per_s > 1.05 * best_tp4);
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

TEST_CASE("search: strategy guidance: multi-node InfiniBand keeps TP inside servers and DP or PP across", "[advise]") {
  // SEEDS.md: "Multi-node IB: TP intra-node, DP/PP inter-node". The 18.4B Table 1 model on 4 DGX A100
  // servers (HDR InfiniBand), batch 128: 20 B/param needs at least 5-way model parallelism, so the
  // search trades TP, PP and DP; both rank orders are tried, placing TP inside or across servers.
  SearchOptions o;
  o.sets = {"model.layers=40", "model.hidden=6144", "model.heads=48", "training.global_batch=128"};
  o.gpus = 32;
  o.jobs = 2;
  o.only = {{"parallel.zero", {"0"}}, {"training.recompute", {"full"}}, {"training.micro_batch", {"1"}}};
  o.prune = false;  // compares plans far below the top: every plan simulated
  const SearchResult r = run_search(kSrc + "/validate/megatron/template.yaml", o);
  REQUIRE(!r.ranked.empty());
  LoadedScenario topo = load_scenario(kSrc + "/validate/megatron/template.yaml", {"nodes=4", "parallel.dp=32"});
  const SearchPlan& best = r.ranked.front();
  CHECK(best.scenario.parallel.tp > 1);
  CHECK(best.tp_inside_server);
  const int dp_hosts = place_group(best.scenario, topo.topology, {Dim::ep, Dim::dp}).hosts;
  const int pp_hosts = place_group(best.scenario, topo.topology, {Dim::pp}).hosts;
  CHECK(std::max(dp_hosts, pp_hosts) > 1);  // what crosses servers is DP or PP
  // Every plan whose TP group crosses servers is slower than the same plan with TP inside them.
  auto key = [](const SearchPlan& p) {
    const auto& q = p.scenario.parallel;
    return fmt::format("{} {} {} {} {}", q.tp, q.pp, q.dp, p.scenario.schedule.kind, p.scenario.training.micro_batch);
  };
  int across = 0;
  for (const auto& a : r.ranked) {
    if (a.tp_inside_server) continue;
    ++across;
    for (const auto& b : r.ranked)
      if (b.tp_inside_server && key(b) == key(a)) CHECK(b.metrics.tokens_per_s > a.metrics.tokens_per_s);
  }
  CHECK(across > 0);
}

TEST_CASE("search: strategy guidance: a 145.6B model on 64 A100 is best in 3D parallelism", "[advise]") {
  // SEEDS.md: "100B–1T: 3D". The 145.6B Table 1 model on 8 DGX A100 servers, batch 64, ZeRO 1 or 3
  // allowed: the fastest plan combines TP (inside a server), PP and DP, ahead of FSDP over all 64 GPUs
  // (its per-layer parameter all-gathers cross InfiniBand every micro-batch) and of TP x FSDP.
  SearchOptions o;
  // Gradient reduction overlapped with the backward pass, as every current framework does (template.yaml
  // turns it off: 2021 Megatron-LM's local DDP reduced after the backward pass; FSDP always overlaps).
  o.sets = {"model.layers=80", "model.hidden=12288", "model.heads=96", "training.global_batch=64",
            "training.overlap.grad_reduce=true"};
  o.gpus = 64;
  o.jobs = 2;
  o.only = {{"parallel.zero", {"1", "3"}}, {"training.recompute", {"full"}}, {"training.micro_batch", {"1"}},
            {"parallel.order", {"[tp,cp,ep,dp,pp]"}}};
  o.prune = false;  // the best plan that is not 3D may be far below the top: every plan simulated
  const SearchResult r = run_search(kSrc + "/validate/megatron/template.yaml", o);
  REQUIRE(!r.ranked.empty());
  const SearchPlan& best = r.ranked.front();
  const auto& b = best.scenario.parallel;
  CHECK(b.tp > 1);
  CHECK(b.pp > 1);
  CHECK(b.dp > 1);
  CHECK(best.tp_inside_server);
  double best_not_3d = 0;
  for (const auto& p : r.ranked) {
    const auto& q = p.scenario.parallel;
    if (q.tp == 1 || q.pp == 1 || q.dp == 1) best_not_3d = std::max(best_not_3d, p.metrics.tokens_per_s);
  }
  CHECK(best_not_3d > 0);  // FSDP (TP 1, PP 1, ZeRO 3) is among the candidates
  CHECK(best.metrics.tokens_per_s > 1.05 * best_not_3d);
}

TEST_CASE("search: 1000 plans on 32 GPUs", "[advise][bench][search]") {
  // README "Benchmarks": build/tests/plansim_tests "[bench][search]"
  SearchOptions o;
  o.gpus = 32;
  o.jobs = 2;
  o.prune = false;  // simulation throughput: every plan that fits
  const SearchResult r = run_search(kSrc + "/scenarios/antipatterns/good.yaml", o);
  WARN(r.simulated << " plans simulated (" << r.enumerated << " enumerated, " << r.pruned << " pruned) in "
                   << r.wall_s << " s wall");
  CHECK(r.simulated >= 1000);
}
