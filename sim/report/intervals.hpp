#pragma once
// Unions and intersections of time intervals, for overlap and bubble metrics.
#include <utility>
#include <vector>

#include "sim/core/units.hpp"

namespace plansim {

using Interval = std::pair<Time, Time>;

// Sorts and merges overlapping/touching intervals.
std::vector<Interval> merge_intervals(std::vector<Interval> v);
Time total_length(const std::vector<Interval>& merged);
// Length of the intersection of two merged lists.
Time overlap_length(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace plansim
