// The lower bound (report/plan_bound.hpp): never above the simulated iteration time over random
// small plans, and equal to it where nothing can be slowed (no compute slowdown, no two transfers on
// one link at once).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <random>

#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/report/plan_bound.hpp"
#include "sim/report/simulate_plan.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/small_scenario.hpp"

using namespace plansim;

namespace {
const std::string kTiny = std::string(PLANSIM_SOURCE_DIR) + "/tests/data/bound/tiny.yaml";

// Flows finish at their exact time rounded to the nearest picosecond and the bound rounds each
// transfer down, so where the two follow the same path they differ by under 1 ps per transfer on it;
// a few thousand transfers at most in these plans: 10 ns covers it with a wide margin, and is far
// below any op's duration (an op of the tiny model takes microseconds), so the check can fail.
constexpr Time kTolerance = Time::ns(10);
}  // namespace

// Random TP/CP/PP/DP/EP (MoE), micro-batch, schedule, recompute, ZeRO, sequence parallelism and compute
// slowdown on one or two DGX H100 servers.
TEST_CASE("bound: never above the simulated iteration over random small plans", "[bound]") {
  std::mt19937 rng(20261124);
  auto pick = [&](std::initializer_list<const char*> v) {
    return *(v.begin() + std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng));
  };
  int checked = 0, tight = 0;
  for (int trial = 0; trial < 80; ++trial) {
    std::vector<std::string> sets;
    const int nodes = std::uniform_int_distribution<int>(1, 2)(rng);
    const int world = 8 * nodes;
    const int tp = std::stoi(pick({"1", "2", "4"}));
    const int pp = std::stoi(pick({"1", "2", "4"}));
    const int cp = std::stoi(pick({"1", "1", "2"}));
    if (world % (tp * pp * cp) != 0) continue;
    const int dp = world / (tp * pp * cp);
    const int mb = std::stoi(pick({"1", "2"}));
    const int micro = std::uniform_int_distribution<int>(1, 4)(rng) * pp;
    sets = {fmt::format("nodes={}", nodes), fmt::format("parallel.tp={}", tp), fmt::format("parallel.pp={}", pp),
            fmt::format("parallel.dp={}", dp), fmt::format("training.micro_batch={}", mb),
            fmt::format("training.global_batch={}", int64_t{mb} * dp * micro),
            std::string("training.recompute=") + pick({"none", "selective", "selective_op", "full"}),
            std::string("parallel.zero=") + (dp > 1 ? pick({"0", "1", "3"}) : "0"),
            std::string("parallel.sequence_parallel=") + (tp > 1 ? pick({"true", "false"}) : "false"),
            std::string("compute.comm_slowdown=") + pick({"0", "0.1", "0.3"})};
    if (cp > 1) sets.push_back(fmt::format("parallel.cp={}", cp));
    if (const int ep = std::stoi(pick({"1", "1", "2", "4"})); ep > 1 && dp % ep == 0) {  // MoE with experts over EP
      sets.emplace_back("model.moe={experts: 8, top_k: 2, expert_ffn_hidden: 1024}");
      sets.push_back(fmt::format("parallel.ep={}", ep));
    }
    const std::string sched = pp > 1 ? pick({"gpipe", "1f1b", "interleaved", "zb-h1"}) : "1f1b";
    sets.push_back("schedule.kind=" + sched);
    if (sched == "interleaved") sets.emplace_back("schedule.virtual_stages=2");
    std::optional<LoadedScenario> s;
    try {
      s.emplace(load_scenario(kTiny, sets));
    } catch (const ConfigError&) {
      continue;  // a combination the loader rejects
    }
    INFO(fmt::format("{}", fmt::join(sets, " ")));
    const PlanRun run = simulate_plan(s->scenario, s->topology, SimulateOptions{true, false});
    const PlanBound b = bound_plan(s->scenario, s->topology);
    CHECK(b.iteration <= run.report.iteration);
    CHECK(b.iteration > Time::zero());
    ++checked;
    if (run.report.iteration - b.iteration <= kTolerance) ++tight;
    // The bound of the unfolded programs bounds the same run (the folded one takes the smallest copy).
    if (trial % 4 == 0) {
      const PlanRun full = simulate_plan(s->scenario, s->topology, SimulateOptions{false, false});
      CHECK(b.iteration <= full.report.iteration);
    }
  }
  // The bound is not vacuous: some random plans (no slowdown, transfers apart) meet it exactly
  // (16 of 71 with this seed).
  INFO("checked " << checked << ", tight " << tight);
  CHECK(checked >= 30);
  CHECK(tight >= 5);
}

TEST_CASE("bound: equal to the simulated iteration where nothing contends", "[bound]") {
  // No compute slowdown; each case moves at most one transfer per link at a time.
  struct Case {
    int tp, pp, dp, gpus, m;
  };
  for (const Case c : {Case{1, 1, 1, 1, 3}, Case{2, 1, 1, 2, 2}, Case{1, 1, 2, 2, 1}, Case{1, 2, 1, 2, 1},
                       Case{4, 1, 1, 4, 2}}) {
    Scenario s = testing::small_scenario(c.tp, c.pp, c.dp, c.m);
    s.compute.comm_slowdown = 0.0;
    const Topology topo = testing::make_cluster(1, c.gpus);
    INFO(fmt::format("tp {} pp {} dp {} m {}", c.tp, c.pp, c.dp, c.m));
    const PlanRun run = simulate_plan(s, topo, SimulateOptions{true, false});
    const PlanBound b = bound_plan(s, topo);
    CHECK(b.iteration <= run.report.iteration);
    CHECK(run.report.iteration - b.iteration <= kTolerance);
  }
}

TEST_CASE("bound: below the simulation by the compute slowdown when transfers overlap compute", "[bound]") {
  // DP 2 with several micro-batches overlaps the gradient all-reduce with the last backward: with a
  // 30 % slowdown the simulation is slower, the bound (unslowed compute) is not.
  Scenario s = testing::small_scenario(1, 1, 2, 1);
  const Topology topo = testing::make_cluster(1, 2);
  s.compute.comm_slowdown = 0.0;
  const Time fast = simulate_plan(s, topo, SimulateOptions{true, false}).report.iteration;
  const Time b0 = bound_plan(s, topo).iteration;
  s.compute.comm_slowdown = 0.3;
  const Time slow = simulate_plan(s, topo, SimulateOptions{true, false}).report.iteration;
  const Time b1 = bound_plan(s, topo).iteration;
  CHECK(b0 == b1);
  CHECK(slow > fast);
  CHECK(b1 <= fast);
}
