// 1F1B (PipeDream-Flush, Narayanan et al. 2021): stage s warms up with min(p−s−1, m) forwards, then
// alternates one forward and one backward, then drains the remaining backwards. At most p−s
// micro-batches are in flight on stage s; the bubble equals GPipe's, (p−1)/(m+p−1) of the time.
#include <algorithm>

#include "sim/sched/registry.hpp"

namespace plansim {
namespace {
class OneFOneB final : public PipelineSchedule {
 public:
  std::string name() const override { return "1f1b"; }
  std::string description() const override { return "one-forward-one-backward, p−s micro-batches in flight"; }
  StageOrders build(const ScheduleShape& sh) const override {
    StageOrders orders(static_cast<size_t>(sh.stages));
    for (int s = 0; s < sh.stages; ++s) {
      auto& o = orders[static_cast<size_t>(s)];
      const int warm = std::min(sh.stages - s - 1, sh.micro_batches);
      int f = 0, b = 0;
      for (; f < warm; ++f) o.push_back({Phase::F, f, 0});
      while (f < sh.micro_batches) {
        o.push_back({Phase::F, f++, 0});
        o.push_back({Phase::B, b++, 0});
      }
      while (b < sh.micro_batches) o.push_back({Phase::B, b++, 0});
    }
    return orders;
  }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_one_f_one_b() { return std::make_unique<OneFOneB>(); }
}  // namespace plansim
