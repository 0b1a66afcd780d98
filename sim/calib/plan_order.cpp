#include "sim/calib/plan_order.hpp"

#include <cmath>
#include <map>
#include <set>

#include "sim/core/assert.hpp"

namespace plansim::calib {

PlanOrder plan_order(const std::vector<std::string>& group, const std::vector<double>& published_rate,
                     const std::vector<double>& predicted_rate, double tie) {
  PLANSIM_ASSERT(group.size() == published_rate.size() && group.size() == predicted_rate.size(),
                 "one group and two rates per run");
  std::map<std::string, std::vector<std::size_t>> members;
  for (std::size_t i = 0; i < group.size(); ++i)
    if (!group[i].empty()) members[group[i]].push_back(i);
  PlanOrder o;
  for (const auto& [name, m] : members) {
    bool compared = false;
    for (std::size_t a = 0; a < m.size(); ++a)
      for (std::size_t b = a + 1; b < m.size(); ++b) {
        const double pa = published_rate[m[a]], pb = published_rate[m[b]];
        if (std::abs(pa - pb) <= tie * std::max(pa, pb)) {
          ++o.within_tie;
          continue;
        }
        compared = true;
        ++o.pairs;
        const double qa = predicted_rate[m[a]], qb = predicted_rate[m[b]];
        if (qa != qb && (pa > pb) == (qa > qb)) ++o.agreeing;  // a predicted tie orders nothing
      }
    if (compared) ++o.groups;
  }
  return o;
}

}  // namespace plansim::calib
