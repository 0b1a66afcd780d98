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

void check_orders(const StageOrders& orders, const ScheduleShape& shape, bool split) {
  PLANSIM_ASSERT(static_cast<int>(orders.size()) == shape.stages, "one order per stage");
  const auto idx = [&](int mb, int c) { return static_cast<size_t>(mb * shape.virtual_stages + c); };
  const size_t n = static_cast<size_t>(shape.micro_batches * shape.virtual_stages);
  for (const auto& order : orders) {
    std::vector<int> state(n, 0);  // 0 none, 1 F done, 2 B done, 3 W done
    for (const auto& op : order) {
      PLANSIM_ASSERT(op.micro_batch >= 0 && op.micro_batch < shape.micro_batches && op.chunk >= 0 &&
                         op.chunk < shape.virtual_stages, "op out of range");
      int& s = state[idx(op.micro_batch, op.chunk)];
      const int want = op.phase == Phase::F ? 0 : op.phase == Phase::B ? 1 : 2;
      PLANSIM_ASSERT(s == want, "schedule order violates F < B < W or repeats an op");
      PLANSIM_ASSERT(split || op.phase != Phase::W, "W op in a schedule that does not split backward");
      s = want + 1;
    }
    for (int s : state) PLANSIM_ASSERT(s == (split ? 3 : 2), "schedule misses an op");
  }
}

}  // namespace plansim
