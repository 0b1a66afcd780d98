#include "sim/plan/fold_equivariance.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "sim/plan/ep_dispatch.hpp"
#include "sim/plan/rank_mapping.hpp"

namespace plansim {
namespace {

// The member sets of `rank`'s expert-parallel groups, as the rank builder forms them (rank_builder.cpp).
std::vector<std::vector<int>> expert_groups(const Scenario& s, const RankMapping& map, int rank) {
  std::vector<std::vector<int>> out{map.expert_group(rank)};
  const ParallelSpec& par = s.parallel;
  if (par.ep_dispatcher == ParallelSpec::EpDispatcher::hierarchical) {
    EpSplit split = split_ep_group(out.front(), rank, par.domain_gpus);
    if (!split.across.empty()) {
      out.push_back(std::move(split.across));
      out.push_back(std::move(split.within));
    }
  }
  for (auto& g : out) std::sort(g.begin(), g.end());
  return out;
}

std::string describe(const std::vector<int>& g) {
  if (g.size() <= 6) return fmt::format("{{{}}}", fmt::join(g, ", "));
  return fmt::format("{{{}, {}, {}, ..., {}}} ({} ranks)", g[0], g[1], g[2], g.back(), g.size());
}

}  // namespace

std::string expert_groups_break_fold(const Scenario& s, Dim dim, int block) {
  if (!s.model.moe || s.parallel.ep <= 1) return "";
  const RankMapping map(s.parallel);
  const int size = map.size(dim);
  auto shift = [&](int rank) {
    RankCoords c = map.coords(rank);
    c[dim] = (c[dim] + block) % size;
    return map.rank(c);
  };
  for (int r = 0; r < map.world(); ++r) {
    const auto mine = expert_groups(s, map, r);
    const auto theirs = expert_groups(s, map, shift(r));
    for (size_t i = 0; i < mine.size(); ++i) {
      std::vector<int> moved;
      moved.reserve(mine[i].size());
      for (int m : mine[i]) moved.push_back(shift(m));
      std::sort(moved.begin(), moved.end());
      if (i >= theirs.size() || moved != theirs[i])
        return fmt::format("rank {}'s expert-parallel group {} shifted by {} replicas is not rank {}'s ({})", r,
                           describe(mine[i]), block, shift(r),
                           i < theirs.size() ? describe(theirs[i]) : "split otherwise");
    }
  }
  return "";
}

}  // namespace plansim
