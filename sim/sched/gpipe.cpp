// GPipe (Huang et al. 2019): all forwards, then all backwards. Holds all m micro-batches' activations.
#include "sim/sched/registry.hpp"

namespace plansim {
namespace {
class GPipe final : public PipelineSchedule {
 public:
  std::string name() const override { return "gpipe"; }
  std::string description() const override { return "all forwards then all backwards (m activations in flight)"; }
  StageOrders build(const ScheduleShape& sh) const override {
    StageOrders orders(static_cast<size_t>(sh.stages));
    for (auto& o : orders) {
      for (int mb = 0; mb < sh.micro_batches; ++mb) o.push_back({Phase::F, mb, 0});
      for (int mb = 0; mb < sh.micro_batches; ++mb) o.push_back({Phase::B, mb, 0});
    }
    return orders;
  }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_gpipe() { return std::make_unique<GPipe>(); }
}  // namespace plansim
