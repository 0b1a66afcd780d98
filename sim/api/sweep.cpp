#include "sim/api/commands.hpp"
#include "sim/io/scenario_loader.hpp"

namespace plansim::api {

advise::SweepResult sweep(const std::string& scenario, const std::vector<std::string>& vary,
                          const std::vector<std::string>& sets, int jobs, const advise::ProgressFn& progress,
                          const std::string& shard, const std::string& out) {
  const advise::Shard slice = shard.empty() ? advise::Shard{} : advise::parse_shard(shard);
  std::vector<advise::VaryKey> keys;
  for (const auto& v : vary) {
    keys.push_back(advise::parse_vary(v));
    advise::check_scenario_key(keys.back());
  }
  // The file itself (syntax, duplicate or unknown keys, the --set overrides) is bad input, not an
  // invalid point: refused before any point runs.
  check_scenario_file(scenario, sets);
  advise::SweepResult r = advise::run_sweep(scenario, sets, keys, jobs > 0 ? jobs : advise::default_jobs(), slice,
                                             out, progress);
  advise::rethrow_if_all_invalid_alike(r.points);
  return r;
}

}  // namespace plansim::api
