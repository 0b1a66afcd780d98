#pragma once
// Pipeline schedules: each produces, per pipeline stage, the order of its F (forward), B (backward;
// input+weight gradients unless the schedule splits backward) and W (weight gradient) ops. One file
// per schedule, one line in registry.cpp. Which layers chunk c of stage s holds and where a
// micro-batch goes next is the schedule's layout (layout.hpp): Megatron's (chunk c of stage s is
// virtual stage c·p + s; with v = 1 the chunk is always 0) unless the schedule says otherwise.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/sched/layout.hpp"

namespace plansim {

enum class Phase : uint8_t { F, B, W };
const char* to_string(Phase p);

struct SchedOp {
  Phase phase = Phase::F;
  int micro_batch = 0;
  int chunk = 0;
  // B only, in a schedule that splits backward: this B also computes the weight gradient (no W op
  // follows for it), as a backward without zero-bubble deferral does.
  bool with_weight = false;
  // F only: runs overlapped with the B that follows it (DualPipe's F&B chunk pair): the two are
  // emitted block by block, alternating, so one's communication hides under the other's compute.
  bool paired = false;
  friend bool operator==(const SchedOp&, const SchedOp&) = default;
};

using StageOrders = std::vector<std::vector<SchedOp>>;  // [stage] -> ops in execution order

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::string description() const = 0;
  // True when backward is split into B (input gradient) and W (weight gradient) ops.
  [[nodiscard]] virtual bool splits_backward() const { return false; }
  [[nodiscard]] virtual PipelineLayout layout(const ScheduleShape& shape) const { return PipelineLayout::megatron(shape); }
  [[nodiscard]] virtual StageOrders build(const ScheduleShape& shape) const = 0;
};

// Checks an order: every (micro-batch, chunk) the layout routes through a stage has exactly one F
// and one B (and one W when split, unless the B is `with_weight`), B after F, W after B; no other
// ops. Throws InternalError otherwise.
void check_orders(const StageOrders& orders, const PipelineLayout& layout, bool split_backward);

}  // namespace plansim
