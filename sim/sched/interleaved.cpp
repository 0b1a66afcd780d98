// Interleaved 1F1B (Narayanan et al. 2021, Megatron-LM's forward_backward_pipelining_with_interleaving):
// each stage holds v model chunks; micro-batches advance in groups of p through chunk 0, then
// chunk 1, ... Warm-up on stage s: (p−s−1)·2 + (v−1)·p forwards. Bubble overhead (p−1)/(v·m).
// Needs m to be a multiple of p (checked by the scenario loader).
#include <algorithm>

#include "sim/sched/registry.hpp"

namespace plansim {
namespace {
class Interleaved final : public PipelineSchedule {
 public:
  std::string name() const override { return "interleaved"; }
  std::string description() const override { return "interleaved 1F1B over v virtual stages per GPU"; }
  StageOrders build(const ScheduleShape& sh) const override {
    const int p = sh.stages, v = sh.virtual_stages, m = sh.micro_batches;
    const int total = m * v;
    // Megatron's mapping of the k-th forward (backward) of a stage to (micro-batch, chunk).
    auto fwd = [&](int k) {
      const int in_group = k % (p * v);
      return SchedOp{Phase::F, (k / (p * v)) * p + in_group % p, in_group / p};
    };
    auto bwd = [&](int k) {
      const int in_group = k % (p * v);
      return SchedOp{Phase::B, (k / (p * v)) * p + in_group % p, v - 1 - in_group / p};
    };
    StageOrders orders(static_cast<size_t>(p));
    for (int s = 0; s < p; ++s) {
      auto& o = orders[static_cast<size_t>(s)];
      const int warm = v == 1 ? std::min(p - s - 1, total) : std::min((p - s - 1) * 2 + (v - 1) * p, total);
      int f = 0, b = 0;
      for (; f < warm; ++f) o.push_back(fwd(f));
      while (f < total) {
        o.push_back(fwd(f++));
        o.push_back(bwd(b++));
      }
      while (b < total) o.push_back(bwd(b++));
    }
    return orders;
  }
};
}  // namespace
std::unique_ptr<PipelineSchedule> make_interleaved() { return std::make_unique<Interleaved>(); }
}  // namespace plansim
