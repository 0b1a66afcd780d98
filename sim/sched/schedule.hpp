#pragma once
// Pipeline schedules: each produces, per pipeline stage, the order of its F (forward), B (backward;
// input+weight gradients unless the schedule splits backward) and W (weight gradient) ops. One file
// per schedule, one line in registry.cpp. Model chunk c of stage s is virtual stage c·p + s
// (Megatron's interleaved layout), so with v = 1 the chunk is always 0.
#include <cstdint>
#include <string>
#include <vector>

namespace plansim {

enum class Phase : uint8_t { F, B, W };
const char* to_string(Phase p);

struct SchedOp {
  Phase phase = Phase::F;
  int micro_batch = 0;
  int chunk = 0;
  friend bool operator==(const SchedOp&, const SchedOp&) = default;
};

struct ScheduleShape {
  int stages = 1;          // p
  int micro_batches = 1;   // m
  int virtual_stages = 1;  // v (chunks per stage)
};

using StageOrders = std::vector<std::vector<SchedOp>>;  // [stage] -> ops in execution order

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::string description() const = 0;
  // True when backward is split into B (input gradient) and W (weight gradient) ops.
  [[nodiscard]] virtual bool splits_backward() const { return false; }
  [[nodiscard]] virtual StageOrders build(const ScheduleShape& shape) const = 0;
};

// Virtual stage index of (stage, chunk) and its inverse.
inline int virtual_stage(int stage, int chunk, int stages) { return chunk * stages + stage; }

// Checks an order: every (micro-batch, chunk) has exactly one F and one B (and one W when split),
// B after F, W after B. Throws InternalError otherwise.
void check_orders(const StageOrders& orders, const ScheduleShape& shape, bool split_backward);

}  // namespace plansim
