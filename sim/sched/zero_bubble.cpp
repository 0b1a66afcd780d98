#include "sim/sched/zero_bubble.hpp"

#include <deque>
#include <limits>

#include "sim/core/assert.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {

StageOrders zero_bubble_orders(const ScheduleShape& sh, const std::function<int(int)>& in_flight_limit,
                               const std::function<int(int)>& w_cap) {
  const int p = sh.stages, m = sh.micro_batches;
  PLANSIM_ASSERT(sh.virtual_stages == 1, "zero-bubble schedules here use one chunk per stage");
  constexpr long kNever = std::numeric_limits<long>::max();
  // done time (end of the unit step) of F and B per (stage, micro-batch)
  std::vector<std::vector<long>> f_end(static_cast<size_t>(p), std::vector<long>(static_cast<size_t>(m), kNever));
  auto b_end = f_end;
  StageOrders orders(static_cast<size_t>(p));
  std::vector<int> next_f(static_cast<size_t>(p), 0), next_b(static_cast<size_t>(p), 0);
  std::vector<std::deque<int>> pending_w(static_cast<size_t>(p));
  size_t remaining = static_cast<size_t>(3 * p * m);
  for (long t = 0; remaining > 0; ++t) {
    PLANSIM_ASSERT(t < 16L * (p + m) * 3 + 16, "zero-bubble list scheduler made no progress");
    for (int s = 0; s < p; ++s) {
      const auto su = static_cast<size_t>(s);
      auto& o = orders[su];
      const int b = next_b[su];
      // B(b) is ready when its gradient arrived (next stage's B done) or, on the last stage, F(b) done.
      const bool b_ready = b < m && b < next_f[su] &&
                           (s == p - 1 ? f_end[su][static_cast<size_t>(b)] <= t : b_end[su + 1][static_cast<size_t>(b)] <= t);
      const int f = next_f[su];
      const bool f_ready = f < m && next_f[su] - next_b[su] < in_flight_limit(s) &&
                           (s == 0 || f_end[su - 1][static_cast<size_t>(f)] <= t);
      const bool must_w = static_cast<int>(pending_w[su].size()) > w_cap(s);
      if (must_w) {
        o.push_back({Phase::W, pending_w[su].front(), 0});
        pending_w[su].pop_front();
      } else if (b_ready) {
        o.push_back({Phase::B, b, 0});
        b_end[su][static_cast<size_t>(b)] = t + 1;
        pending_w[su].push_back(b);
        ++next_b[su];
      } else if (f_ready) {
        o.push_back({Phase::F, f, 0});
        f_end[su][static_cast<size_t>(f)] = t + 1;
        ++next_f[su];
      } else if (!pending_w[su].empty()) {
        o.push_back({Phase::W, pending_w[su].front(), 0});
        pending_w[su].pop_front();
      } else {
        continue;
      }
      --remaining;
    }
  }
  return orders;
}

namespace {
class ZeroBubble final : public PipelineSchedule {
 public:
  ZeroBubble(std::string name, int memory_factor) : name_(std::move(name)), factor_(memory_factor) {}
  std::string name() const override { return name_; }
  std::string description() const override {
    return factor_ == 1 ? "zero-bubble H1: B/W split, 1F1B memory" : "zero-bubble H2: B/W split, ~2x 1F1B memory";
  }
  bool splits_backward() const override { return true; }
  StageOrders build(const ScheduleShape& sh) const override {
    const int p = sh.stages, k = factor_;
    return zero_bubble_orders(
        sh, [p, k](int s) { return k * (p - s) - (k - 1); }, [p](int) { return p - 1; });
  }

 private:
  std::string name_;
  int factor_;
};
}  // namespace

std::unique_ptr<PipelineSchedule> make_zb_h1() { return std::make_unique<ZeroBubble>("zb-h1", 1); }
std::unique_ptr<PipelineSchedule> make_zb_h2() { return std::make_unique<ZeroBubble>("zb-h2", 2); }

}  // namespace plansim
