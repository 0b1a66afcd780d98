#include "sim/report/intervals.hpp"

#include <algorithm>

namespace plansim {

std::vector<Interval> merge_intervals(std::vector<Interval> v) {
  // A stream's ops run in program order, so the intervals usually come sorted already.
  if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  out.reserve(v.size());
  for (const auto& i : v) {
    if (i.second <= i.first) continue;
    if (!out.empty() && i.first <= out.back().second) out.back().second = std::max(out.back().second, i.second);
    else out.push_back(i);
  }
  return out;
}

Time total_length(const std::vector<Interval>& merged) {
  Time t;
  for (const auto& i : merged) t += i.second - i.first;
  return t;
}

Time overlap_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  Time t;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const Time lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo < hi) t += hi - lo;
    if (a[i].second < b[j].second) ++i;
    else ++j;
  }
  return t;
}

}  // namespace plansim
