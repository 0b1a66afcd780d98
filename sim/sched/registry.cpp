#include "sim/sched/registry.hpp"

#include <functional>
#include <utility>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {
using Factory = std::unique_ptr<PipelineSchedule> (*)();
const std::vector<std::pair<std::string, Factory>>& table() {
  static const std::vector<std::pair<std::string, Factory>> t = {
      {"gpipe", make_gpipe},
      {"1f1b", make_one_f_one_b},
      {"interleaved", make_interleaved},
      {"zb-h1", make_zb_h1},
      {"zb-h2", make_zb_h2},
      {"dualpipe", make_dualpipe},
  };
  return t;
}
}  // namespace

std::unique_ptr<PipelineSchedule> make_schedule(const std::string& name) {
  for (const auto& [n, f] : table())
    if (n == name) return f();
  PLANSIM_ASSERT(false, "unknown schedule " + name);
  return nullptr;
}

PipelineLayout schedule_layout(const std::string& name, const ScheduleShape& shape) {
  return make_schedule(name)->layout(shape);
}

std::vector<std::string> schedule_names() {
  std::vector<std::string> names;
  for (const auto& e : table()) names.push_back(e.first);
  return names;
}

const char* to_string(Phase p) {
  switch (p) {
    case Phase::F: return "F";
    case Phase::B: return "B";
    case Phase::W: return "W";
  }
  return "?";
}

void check_orders(const StageOrders& orders, const PipelineLayout& layout, bool split) {
  PLANSIM_ASSERT(static_cast<int>(orders.size()) == layout.stages(), "one order per stage");
  const int chunks = layout.chunks(), m = layout.micro_batches();
  const auto idx = [&](int mb, int c) { return static_cast<size_t>(mb * chunks + c); };
  for (const auto& order : orders) {
    std::vector<int> state(static_cast<size_t>(m * chunks), 0);  // 0 none, 1 F done, 2 B done, 3 W done
    for (const auto& op : order) {
      PLANSIM_ASSERT(op.micro_batch >= 0 && op.micro_batch < m && op.chunk >= 0 && op.chunk < chunks,
                     "op out of range");
      PLANSIM_ASSERT(layout.visits(op.chunk, op.micro_batch), "op on a chunk its micro-batch does not pass through");
      int& s = state[idx(op.micro_batch, op.chunk)];
      const int want = op.phase == Phase::F ? 0 : op.phase == Phase::B ? 1 : 2;
      PLANSIM_ASSERT(s == want, "schedule order violates F < B < W or repeats an op");
      PLANSIM_ASSERT(split || op.phase != Phase::W, "W op in a schedule that does not split backward");
      PLANSIM_ASSERT(!op.with_weight || (split && op.phase == Phase::B), "with_weight only on B ops of a split schedule");
      PLANSIM_ASSERT(!op.paired || op.phase == Phase::F, "only an F op pairs with the next B");
      s = op.with_weight ? 3 : want + 1;
    }
    for (int mb = 0; mb < m; ++mb)
      for (int c = 0; c < chunks; ++c)
        if (layout.visits(c, mb)) PLANSIM_ASSERT(state[idx(mb, c)] == (split ? 3 : 2), "schedule misses an op");
  }
  for (const auto& order : orders)
    for (size_t i = 0; i < order.size(); ++i)
      if (order[i].paired)
        PLANSIM_ASSERT(i + 1 < order.size() && order[i + 1].phase == Phase::B, "a paired F must be followed by a B");
}

}  // namespace plansim
