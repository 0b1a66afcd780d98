#include "sim/sched/zero_bubble.hpp"

#include <algorithm>
#include <deque>

#include "sim/core/assert.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {

StageOrders zero_bubble_orders(const ScheduleShape& sh, int k) {
  const int p = sh.stages, m = sh.micro_batches;
  PLANSIM_ASSERT(sh.virtual_stages == 1, "zero-bubble schedules here use one chunk per stage");
  PLANSIM_ASSERT(k == 1 || k == 2, "zero-bubble memory factor is 1 (ZB-H1) or 2 (ZB-H2)");
  StageOrders orders(static_cast<size_t>(p));
  for (int s = 0; s < p; ++s) {
    auto& o = orders[static_cast<size_t>(s)];
    const int limit = k * (p - s) - (k - 1);  // micro-batches awaiting B
    const auto lag = static_cast<size_t>(k * s);  // W's left pending
    std::deque<int> pending_w;
    int f = 0, b = 0;
    auto backward = [&]() {
      o.push_back({Phase::B, b, 0});
      pending_w.push_back(b++);
      if (pending_w.size() > lag) {
        o.push_back({Phase::W, pending_w.front(), 0});
        pending_w.pop_front();
      }
    };
    for (const int warm = std::min(m, limit - 1); f < warm; ++f) o.push_back({Phase::F, f, 0});
    while (f < m) {
      o.push_back({Phase::F, f++, 0});
      backward();
    }
    while (b < m) backward();
    for (int w : pending_w) o.push_back({Phase::W, w, 0});
  }
  return orders;
}

namespace {
class ZeroBubble final : public PipelineSchedule {
 public:
  ZeroBubble(std::string name, int memory_factor) : name_(std::move(name)), factor_(memory_factor) {}
  std::string name() const override { return name_; }
  std::string description() const override {
    return factor_ == 1 ? "zero-bubble H1: B/W split, 1F1B memory (p·M_B)"
                        : "zero-bubble H2: B/W split, (2p−1)·M_B memory";
  }
  bool splits_backward() const override { return true; }
  StageOrders build(const ScheduleShape& sh) const override { return zero_bubble_orders(sh, factor_); }

 private:
  std::string name_;
  int factor_;
};
}  // namespace

std::unique_ptr<PipelineSchedule> make_zb_h1() { return std::make_unique<ZeroBubble>("zb-h1", 1); }
std::unique_ptr<PipelineSchedule> make_zb_h2() { return std::make_unique<ZeroBubble>("zb-h2", 2); }

}  // namespace plansim
