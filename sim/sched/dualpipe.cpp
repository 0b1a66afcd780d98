// DualPipe (DeepSeek-V3 technical report, arXiv 2412.19437, Sec. 3.2.1, Fig. 5 and Table 2; the op
// order follows deepseek-ai/DualPipe's DualPipe.step()). Bidirectional: with the mirrored layout
// (layout.hpp) stage s holds pieces s (chunk 0) and p−1−s (chunk 1); half of the micro-batches enter
// at stage 0 and run through the chunk-0 copies, the other half enter at stage p−1 and run through
// the chunk-1 copies. Backward is split into B and W as in zero-bubble schedules, but only some
// backwards defer their W; the others compute it at once (`with_weight`). In the steady state a
// forward of one direction is paired with a backward of the other (`paired`: overlapped, so each
// hides the other's communication).
//
// Per stage s, with h = min(s, p−1−s), n = p/2, "near" the chunk whose micro-batches enter at this
// stage's end of the pipeline (chunk 0 for s < n, else chunk 1) and "far" the other:
//   1. 2(n−h−1) × F(near)
//   2. (h+1) × [F(near), F(far)]
//   3. (n−h−1) × [B(far) deferring W, W, F(far)]
//   4. (m/2 − p + h + 1) × [F(near) & B(far), F(far) & B(near)]   (& = paired; the two middle
//      stages run their first F(near), B(far) unpaired, as the reference does to shorten the bubble)
//   5. (n−h−1) × [B(far), F(far) & B(near)]
//   6. (h+1) × [B(far), B(near)], deferring W from the middle of this step on
//   7. (n−h−1) × [W, B(near) deferring W]
//   8. (h+1) × W                        (deferred W's run first in, first out)
// Needs p even, m even and m ≥ 2p (the reference asserts the same; checked by the scenario loader).
// Table 2: bubble (p/2 − 1)(F&B + B − 3W) per stage with B the full backward, parameters 2x,
// activations p + 1 chunks (tests/sched/test_dualpipe.cpp checks both against this order).
#include <algorithm>
#include <deque>

#include "sim/core/assert.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {
namespace {

class StageOrder {
 public:
  StageOrder(const PipelineLayout& lay, std::vector<SchedOp>& out) : lay_(lay), out_(out) {}
  void f(int chunk, bool paired = false) {
    out_.push_back({Phase::F, lay_.lane_first(chunk) + next_f_[chunk]++, chunk, false, paired});
  }
  void b(int chunk, bool defer_w) {
    const SchedOp op{Phase::B, lay_.lane_first(chunk) + next_b_[chunk]++, chunk, !defer_w, false};
    out_.push_back(op);
    if (defer_w) deferred_.push_back({Phase::W, op.micro_batch, chunk, false, false});
  }
  void w() {
    PLANSIM_ASSERT(!deferred_.empty(), "DualPipe order runs a W with none deferred");
    out_.push_back(deferred_.front());
    deferred_.pop_front();
  }
  [[nodiscard]] bool done() const { return deferred_.empty(); }

 private:
  const PipelineLayout& lay_;
  std::vector<SchedOp>& out_;
  int next_f_[2] = {0, 0};
  int next_b_[2] = {0, 0};
  std::deque<SchedOp> deferred_;
};

class DualPipe final : public PipelineSchedule {
 public:
  std::string name() const override { return "dualpipe"; }
  std::string description() const override {
    return "DualPipe: bidirectional, two mirrored chunks per stage, overlapped F&B pairs, B/W split";
  }
  bool splits_backward() const override { return true; }
  PipelineLayout layout(const ScheduleShape& sh) const override { return PipelineLayout::mirrored(sh); }
  StageOrders build(const ScheduleShape& sh) const override {
    const PipelineLayout lay = layout(sh);
    const int p = sh.stages, m = sh.micro_batches, n = p / 2;
    PLANSIM_ASSERT(m >= 2 * p, "DualPipe needs at least 2·p micro-batches");
    StageOrders orders(static_cast<size_t>(p));
    for (int s = 0; s < p; ++s) {
      const int h = std::min(s, p - 1 - s);
      const int near = s < n ? 0 : 1, far = 1 - near;
      const bool middle = h == n - 1;
      StageOrder o(lay, orders[static_cast<size_t>(s)]);
      for (int i = 0; i < 2 * (n - h - 1); ++i) o.f(near);
      for (int i = 0; i < h + 1; ++i) {
        o.f(near);
        o.f(far);
      }
      for (int i = 0; i < n - h - 1; ++i) {
        o.b(far, true);
        o.w();
        o.f(far);
      }
      for (int i = 0; i < m / 2 - p + h + 1; ++i) {
        o.f(near, !(i == 0 && middle));
        o.b(far, false);
        o.f(far, true);
        o.b(near, false);
      }
      for (int i = 0; i < n - h - 1; ++i) {
        o.b(far, false);
        o.f(far, true);
        o.b(near, false);
      }
      bool defer = false;
      for (int i = 0; i < h + 1; ++i) {
        if (i == (h + 1) / 2 && h % 2 == 1) defer = true;
        o.b(far, defer);
        if (i == (h + 1) / 2 && h % 2 == 0) defer = true;
        o.b(near, defer);
      }
      for (int i = 0; i < n - h - 1; ++i) {
        o.w();
        o.b(near, true);
      }
      for (int i = 0; i < h + 1; ++i) o.w();
      PLANSIM_ASSERT(o.done(), "DualPipe order leaves a deferred W");
    }
    return orders;
  }
};

}  // namespace
std::unique_ptr<PipelineSchedule> make_dualpipe() { return std::make_unique<DualPipe>(); }
}  // namespace plansim
