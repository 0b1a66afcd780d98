// Exact symmetry (plan/symmetry.hpp, plan/replica_planes.hpp): every shipped scenario (scaled down
// where it is large) and the MoE benchmark, simulated with the shortcuts and with --no-symmetry,
// must give the same JSON report byte for byte -- once what only says how the run went is set
// aside (`notes`, `symmetry`, `events`, `comm_calls`, the per-op list, which a folded run keeps for
// its executed ranks only) and every folded rank's entry is filled in from the rank it names.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/io/scenario_loader.hpp"
#include "sim/report/report.hpp"
#include "sim/report/simulate_plan.hpp"
#include "tests/support/shipped_scenarios.hpp"

using namespace plansim;

namespace {

std::string comparable(const Report& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(report_json(r));
  for (const char* k : {"notes", "symmetry", "events", "comm_calls", "ops"}) j.erase(k);
  auto& ranks = j["ranks"];
  for (auto& e : ranks) {
    const size_t as = e["executed_as"].get<size_t>();
    const int stage = e["stage"].get<int>();
    const size_t rank = e["rank"].get<size_t>();
    e = ranks[as];
    e["rank"] = rank;
    e["stage"] = stage;
    e.erase("executed_as");
  }
  return j.dump(1);
}

}  // namespace

TEST_CASE("every shipped scenario: the symmetric run's report is the full run's, byte for byte",
          "[symmetry][exact]") {
  const std::string src = PLANSIM_SOURCE_DIR;
  // Large plans scaled down (fewer DP replicas, nodes and micro-batches), same shape otherwise.
  std::vector<std::pair<std::string, std::vector<std::string>>> cases = testing::shipped_scenarios_scaled_down();
  REQUIRE(cases.size() >= 22);
  // The MoE benchmark with each DP replica's TP2 x EP4 in one server: its replicas' planes are
  // disjoint, so it is DP-folded (EP all-to-all inside the replica, dense and expert DP spanning).
  cases.emplace_back("scenarios/bench/simai-moe-9216-h100.yaml",
                     std::vector<std::string>{"parallel.ep=4", "parallel.dp=16", "parallel.pp=2", "model.layers=8",
                                              "schedule.virtual_stages=2", "training.global_batch=64", "nodes=8"});
  // The same with the experts folded (expert_tp 1): EP over TP x DP, either over a whole stage (32
  // ranks, 4 servers) or over each server's 8 GPUs. TP folding does not apply (EP spans TP siblings);
  // DP folds in blocks of a server's 4 replicas (a block of 1 or 2 would cut an expert group, or map
  // NVLink flows onto InfiniBand ones): the stage-wide all-to-all spans the blocks, mapped flow onto
  // flow by the blocks' symmetry (ReplicaOrbits::project_phase).
  for (const char* ep : {"parallel.ep=32", "parallel.ep=8"})
    cases.emplace_back("scenarios/bench/simai-moe-9216-h100.yaml",
                       std::vector<std::string>{ep, "parallel.expert_tp=1", "parallel.dp=16", "parallel.pp=2",
                                                "model.layers=8", "schedule.virtual_stages=2", "training.global_batch=64",
                                                "nodes=8"});
  // Without TP, EP over the whole DP group (the dp coordinate has one replica): the EP ranks fold
  // (CompileOptions::fold_dp_dim), both the all-to-all and the DP collectives spanning them.
  cases.emplace_back("scenarios/bench/simai-moe-9216-h100.yaml",
                     std::vector<std::string>{"parallel.tp=1", "parallel.sequence_parallel=false", "parallel.ep=8",
                                              "parallel.dp=8", "parallel.pp=2", "model.layers=8",
                                              "schedule.virtual_stages=2", "training.global_batch=32", "nodes=2"});
  // Replicas sharing spine-to-core links, and a DP ring symmetric only under a shift by 2 replicas
  // (tests/data/symmetry: Llama 3 405B's cluster in miniature): DP folded in blocks of 2 on the
  // quotient by the replicas' symmetry (plan/replica_orbits.hpp).
  cases.emplace_back("tests/data/symmetry/shared-uplinks.yaml", std::vector<std::string>{});
  int dp_folded_moe = 0, dp_folded_experts = 0, ep_folded = 0, shared_orbits = 0;
  for (const auto& [name, overrides] : cases) {
    LoadedScenario s = load_scenario(src + "/" + name, overrides);
    const PlanRun fast = simulate_plan(s.scenario, s.topology, SimulateOptions{true});
    const PlanRun full = simulate_plan(s.scenario, s.topology, SimulateOptions{false});
    INFO(name << ": " << fast.report.notes);
    CHECK(full.report.symmetry.dp_folding == "off");
    CHECK(full.plan.programs.size() == static_cast<size_t>(full.plan.world));
    const std::string a = comparable(fast.report), b = comparable(full.report);
    if (a != b && std::getenv("PLANSIM_SYMMETRY_DUMP") != nullptr) {
      const std::string base = std::string(std::getenv("PLANSIM_SYMMETRY_DUMP")) + "/" +
                                std::filesystem::path(name).stem().string();
      std::ofstream(base + ".fast.json") << a;
      std::ofstream(base + ".full.json") << b;
    }
    CHECK(a == b);
    if (s.scenario.parallel.ep > 1 && fast.report.symmetry.dp_folding == "exact") ++dp_folded_moe;
    if (s.scenario.parallel.experts_folded() && fast.report.symmetry.dp_folding == "exact" &&
        fast.report.notes.find("blocks of 4 DP replicas") != std::string::npos && fast.plan.programs.size() == 16)
      ++dp_folded_experts;
    if (fast.report.notes.find("the 8 EP ranks' copies") != std::string::npos && fast.plan.programs.size() == 2)
      ++ep_folded;
    if (fast.report.notes.find("orbits of links are shared") != std::string::npos &&
        fast.report.notes.find("blocks of 2 DP replicas") != std::string::npos && fast.plan.programs.size() == 32)
      ++shared_orbits;
    WARN(name << ": dp " << fast.report.symmetry.dp_folding << " " << fast.report.symmetry.dp_abandoned << ", tp "
              << fast.report.symmetry.tp_folding << "/" << fast.report.symmetry.tp_planes << ", executed "
              << fast.plan.programs.size() << " of " << fast.plan.world);
  }
  CHECK(dp_folded_moe >= 1);
  CHECK(dp_folded_experts == 2);
  CHECK(ep_folded >= 1);
  CHECK(shared_orbits == 1);
}
