#include "sim/api/commands.hpp"
#include "sim/io/scenario_loader.hpp"

namespace plansim::api {

advise::SweepResult sweep(const std::string& scenario, const std::vector<std::string>& vary,
                          const std::vector<std::string>& sets, int jobs, const advise::ProgressFn& progress) {
  advise::SweepResult r;
  for (const auto& v : vary) {
    r.keys.push_back(advise::parse_vary(v));
    advise::check_scenario_key(r.keys.back());
  }
  // The file itself (syntax, duplicate or unknown keys, the --set overrides) is bad input, not an
  // invalid point: refused before any point runs.
  check_scenario_file(scenario, sets);
  const auto points = advise::cartesian(r.keys);
  r.points = advise::run_points(scenario, sets, points, jobs > 0 ? jobs : advise::default_jobs(), progress);
  advise::rethrow_if_all_invalid_alike(r.points);
  return r;
}

}  // namespace plansim::api
