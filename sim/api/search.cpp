#include "sim/api/commands.hpp"

namespace plansim::api {

advise::SearchResult search(const SearchRequest& r, const advise::ProgressFn& progress) {
  advise::SearchOptions o;
  o.sets = r.sets;
  o.gpus = r.gpus;
  o.top = r.top;
  o.jobs = r.jobs > 0 ? r.jobs : advise::default_jobs();
  o.max_plans = r.max_plans;
  o.prune = r.prune;
  if (!r.shard.empty()) o.shard = advise::parse_shard(r.shard);
  o.out = r.out;
  for (const auto& v : r.only) {
    auto k = advise::parse_vary(v, "--only");
    o.only.emplace_back(k.key, k.values);
  }
  return advise::run_search(r.scenario, o, progress);
}

}  // namespace plansim::api
