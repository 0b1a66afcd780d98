#include "sim/plan/a2a_overlap.hpp"

#include <utility>

namespace plansim {

void pair_for_a2a_overlap(StageOrders& orders) {
  const auto same = [](const SchedOp& a, const SchedOp& b) {
    return a.micro_batch == b.micro_batch && a.chunk == b.chunk;
  };
  for (auto& order : orders) {
    // B(x) F(y) B(y) -> F(y) B(x) B(y): an F is never paired with its own B, so it takes the B before it.
    for (size_t i = 0; i + 2 < order.size(); ++i)
      if (order[i].phase == Phase::B && order[i + 1].phase == Phase::F && order[i + 2].phase == Phase::B &&
          same(order[i + 1], order[i + 2]))
        std::swap(order[i], order[i + 1]);
    for (size_t i = 0; i + 1 < order.size(); ++i)
      if (order[i].phase == Phase::F && order[i + 1].phase == Phase::B && !same(order[i], order[i + 1])) {
        order[i].paired = true;
        ++i;  // the B is taken
      }
  }
}

}  // namespace plansim
