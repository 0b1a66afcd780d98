#include "sim/api/commands.hpp"
#include "sim/io/scenario_loader.hpp"

namespace plansim::api {

PlanRun run(const RunRequest& r, const std::function<void(const Scenario&)>& before) {
  const LoadedScenario s = load_scenario(r.scenario, r.sets);
  if (before) before(s.scenario);
  return simulate_plan(s.scenario, s.topology, SimulateOptions{r.symmetry, r.ops});
}

}  // namespace plansim::api
