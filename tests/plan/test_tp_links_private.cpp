// tp_links_private (plan/symmetry.hpp) against a reference that routes every checked pair in full:
// its shortcut for routes between islands (only their parts inside the end islands can touch a TP
// link when TP links lie inside islands) must give the same answer, on every shipped scenario (scaled
// down where large), plain and folded, including plans whose TP links are not private.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "sim/io/scenario_loader.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/symmetry.hpp"
#include "tests/support/shipped_scenarios.hpp"

using namespace plansim;

namespace {

// The check as it was before the shortcut: every route walked in full.
bool reference(const CompiledPlan& plan, const Topology& topo) {
  auto copies = [&](const Group& g) { return g.simulated_members == g.ranks.size() ? plan.fold : 1; };
  auto shifted = [&](uint32_t r, int j) { return r + static_cast<uint32_t>(j * plan.fold_stride); };
  std::vector<int64_t> owner(topo.links().size(), -1);
  std::vector<bool> tp_link(topo.links().size(), false);
  bool any_tp = false;
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const Group& g = plan.groups[gi];
    if (g.dim != Dim::tp || g.ranks.size() < 2) continue;
    any_tp = true;
    for (int j = 0; j < copies(g); ++j)
      for (uint32_t a : g.ranks)
        for (uint32_t b : g.ranks)
          if (a != b)
            for (LinkId l : topo.route(GpuId(shifted(a, j)), GpuId(shifted(b, j)))) {
              const auto id = static_cast<int64_t>(gi) * plan.fold + j;
              if (owner[l.index()] >= 0 && owner[l.index()] != id) return false;
              owner[l.index()] = id;
              tp_link[l.index()] = true;
            }
  }
  if (!any_tp) return true;
  auto clean = [&](uint32_t a, uint32_t b) {
    for (LinkId l : topo.route(GpuId(a), GpuId(b)))
      if (tp_link[l.index()]) return false;
    return true;
  };
  for (const Group& g : plan.groups) {
    if (g.dim == Dim::tp || g.ranks.size() < 2) continue;
    for (int j = 0; j < copies(g); ++j)
      for (size_t i = 1; i < g.ranks.size(); ++i) {
        const uint32_t first = shifted(g.ranks[0], j), a = shifted(g.ranks[i - 1], j), b = shifted(g.ranks[i], j);
        if (!clean(first, b) || !clean(b, first) || !clean(a, b) || !clean(b, a)) return false;
      }
  }
  for (const Program& p : plan.programs)
    for (const ProgramOp& op : p.ops)
      if (op.kind == OpKind::send)
        for (int j = 0; j < plan.fold; ++j)
          if (!clean(shifted(p.rank, j), shifted(op.peer, j))) return false;
  return true;
}

}  // namespace

TEST_CASE("tp_links_private: the island-parts shortcut answers as full routes do", "[symmetry][tp_private]") {
  const std::string src = PLANSIM_SOURCE_DIR;
  size_t with_tp = 0, not_private = 0;
  for (const auto& [name, overrides] : testing::shipped_scenarios_scaled_down()) {
    const LoadedScenario s = load_scenario(src + "/" + name, overrides);
    if (s.scenario.parallel.tp < 2) continue;
    ++with_tp;
    for (const CompileOptions& o : {CompileOptions{false}, CompileOptions{true}, CompileOptions{.fold_dp = true}}) {
      const CompiledPlan plan = compile_plan(s.scenario, o);
      INFO(name << " fold " << plan.fold);
      const bool expected = reference(plan, s.topology);
      CHECK(tp_links_private(plan, s.topology) == expected);
      not_private += expected ? 0 : 1;
    }
  }
  CHECK(with_tp >= 5);
  // A plan whose TP groups span servers (TP links in the fabric: the shortcut steps aside) and one on a
  // PCIe server, where TP traffic shares the PCIe switches with the NICs' traffic.
  for (const auto& [name, set] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"scenarios/llama3-70b-64-h100.yaml", {"parallel.tp=16", "parallel.pp=4", "parallel.dp=1"}},
           {"scenarios/llama3-70b-64-h100.yaml", {"topology=../topologies/pcie-8gpu.yaml", "nodes=1", "parallel.tp=4", "parallel.pp=1", "parallel.dp=2"}}}) {
    const LoadedScenario s = load_scenario(src + "/" + name, set);
    for (const CompileOptions& o : {CompileOptions{false}, CompileOptions{true}}) {
      const CompiledPlan plan = compile_plan(s.scenario, o);
      const bool expected = reference(plan, s.topology);
      CHECK(tp_links_private(plan, s.topology) == expected);
      not_private += expected ? 0 : 1;
    }
  }
  CHECK(not_private > 0);
}

TEST_CASE("tp_links_private: TP over PCIe switches that carry the NICs' traffic is not private", "[symmetry][tp_private]") {
  // Two PCIe servers (no NVLink), a NIC per GPU pair on its PCIe switch, one Ethernet switch: TP groups of 2, 4
  // use PCIe links inside a server that the DP transfers' routes to the NICs also cross, so the answer
  // comes from the routes' parts inside the end islands.
  const auto dir = std::filesystem::temp_directory_path() / "plansim_tp_links_private";
  std::filesystem::create_directories(dir);
  const auto topo_file = dir / "pcie-cluster.yaml";
  std::ofstream(topo_file) << "name: pcie-cluster\nnodes: 2\nnode:\n  gpu: H100-PCIe\n  gpus: 8\n"
                              "  pcie: {generation: 5, gpus_per_switch: 2, latency: 0.5 us}\n"
                              "  nics: {count: 4, kind: ethernet, bandwidth: 200 Gb/s, latency: 1 us}\n"
                              "fabric: {kind: single_switch}\n";
  const std::string src = PLANSIM_SOURCE_DIR;
  for (const std::string tp : {"2", "4"}) {
    const LoadedScenario s = load_scenario(src + "/scenarios/llama3-70b-64-h100.yaml",
                                           {"topology=" + topo_file.string(), "nodes=2", "parallel.tp=" + tp,
                                            "parallel.pp=1", "parallel.dp=" + std::to_string(16 / std::stoi(tp))});
    for (const CompileOptions& o : {CompileOptions{false}, CompileOptions{true}, CompileOptions{.fold_dp = true}}) {
      const CompiledPlan plan = compile_plan(s.scenario, o);
      INFO("tp " << tp << " fold " << plan.fold);
      const bool expected = reference(plan, s.topology);
      CHECK(tp_links_private(plan, s.topology) == expected);
      CHECK_FALSE(expected);
    }
  }
}
