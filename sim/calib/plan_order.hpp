#pragma once
// Does plansim order plans as the measurements do? A published sweep (one cluster, one code base, one day)
// compares plans of the same job; its users want the fastest one, so the order matters more than the
// absolute error. Over every pair of runs in the same group whose published rates differ by more than
// `tie` (relative: closer pairs are within the sweep's own noise), the count that plansim puts in the same
// order. Rates are "higher is better" (e.g. model FLOP/s per GPU), so rows of one group with different
// batch or model sizes compare as the sweep's authors compared them.
#include <cstddef>
#include <string>
#include <vector>

namespace plansim::calib {

struct PlanOrder {
  std::size_t groups = 0;        // groups with at least one compared pair
  std::size_t pairs = 0;         // pairs compared
  std::size_t agreeing = 0;      // of those, ordered by plansim as published
  std::size_t within_tie = 0;    // pairs skipped: published rates closer than `tie`
  [[nodiscard]] double share() const { return pairs ? static_cast<double>(agreeing) / static_cast<double>(pairs) : 0; }
};

// group[i] empty: run i is in no group. All three vectors have one entry per run.
PlanOrder plan_order(const std::vector<std::string>& group, const std::vector<double>& published_rate,
                     const std::vector<double>& predicted_rate, double tie);

}  // namespace plansim::calib
