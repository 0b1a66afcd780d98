#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/plan/rank_mapping.hpp"
#include "sim/report/simulate_plan.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/small_scenario.hpp"

using namespace plansim;

// `plansim run --json` lists every rank of the world; with TP folding a folded rank names the
// executed sibling whose figures it shares (`executed_as`) instead of repeating them.
TEST_CASE("report JSON: every rank listed, folded TP siblings point at their executed rank", "[report]") {
  Scenario s = testing::small_scenario(2, 2, 2, 4);  // 8 ranks, TP 2 innermost
  const Topology topo = testing::make_cluster(2, 4);
  const PlanRun folded = simulate_plan(s, topo, SimulateOptions{true, true, false});  // TP folding, not DP
  const PlanRun full = simulate_plan(s, topo, SimulateOptions{false});
  REQUIRE(folded.plan.fold == 2);
  const auto j = nlohmann::json::parse(report_json(folded.report));
  const auto jf = nlohmann::json::parse(report_json(full.report));
  const auto& ranks = j["ranks"];
  REQUIRE(ranks.size() == 8);
  REQUIRE(jf["ranks"].size() == 8);
  RankMapping map(s.parallel);
  int executed = 0;
  for (size_t r = 0; r < 8; ++r) {
    const auto& e = ranks[r];
    INFO("rank " << r);
    CHECK(e["rank"] == r);
    const int as = e["executed_as"].get<int>();
    // The executed rank is TP rank 0 of the same TP group (same stage, same DP coordinate).
    RankCoords c = map.coords(static_cast<int>(r));
    c[Dim::tp] = 0;
    CHECK(as == map.rank(c));
    CHECK(e["stage"] == ranks[static_cast<size_t>(as)]["stage"]);
    if (as == static_cast<int>(r)) {
      ++executed;
      CHECK(e.contains("compute_busy_s"));
      CHECK(e.contains("exposed_comm_s"));
    } else {
      CHECK(e.size() == 3);  // rank, stage, executed_as
    }
    // What sharing stands for: in the unfolded simulation (every rank executed) this rank measures
    // what its executed sibling reports in the folded one (folding is kept only when exact).
    const auto& truth = jf["ranks"][r];
    const auto& shared = ranks[static_cast<size_t>(as)];
    CHECK(truth["executed_as"] == r);
    CHECK(truth["compute_busy_s"].get<double>() == Approx(shared["compute_busy_s"].get<double>()).epsilon(1e-12));
    CHECK(truth["comm_total_s"].get<double>() == Approx(shared["comm_total_s"].get<double>()).epsilon(1e-12));
  }
  CHECK(executed == static_cast<int>(folded.plan.programs.size()));
  CHECK(executed == 4);
}
