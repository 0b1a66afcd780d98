#pragma once
// What the pictures of a run need beyond the per-op records (README "plansim run", "Definitions"):
//   schedule slots: every schedule op (sched/schedule.hpp: F, B or W of one micro-batch on one chunk)
//     of each stage as it ran on the stage's representative (lowest) rank, from the first start to the
//     last end of its compute ops (recompute included in B). DualPipe's paired F&B run interleaved, so
//     their two slots overlap in time.
//   stage time breakdown: the stage rank's iteration cut into compute (any compute op running),
//     exposed communication per dimension (a transfer of the rank's in flight and no compute; time with
//     transfers of several dimensions in flight is split equally between them), bubble (neither, before
//     the pipeline flush ends) and idle (neither, after it): the parts sum to the iteration time.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/plan/executor.hpp"
#include "sim/plan/program.hpp"

namespace plansim {

struct ScheduleSlot {
  int32_t stage = 0;
  int32_t micro_batch = 0;
  uint16_t chunk = 0;
  Phase phase = Phase::F;
  double start_s = 0;
  double end_s = 0;
};

// The slots of programs[index] (one stage's rank), in order of start.
std::vector<ScheduleSlot> schedule_slots(const CompiledPlan& plan, const ExecutionResult& exec, size_t index);

struct StageTimeBreakdown {
  double compute_s = 0;
  std::array<double, 5> exposed_s{};  // by Dim
  double offload_s = 0;  // an activation offload copy in flight, nothing else: the compute stream waits for it
  double bubble_s = 0;
  double idle_s = 0;
  [[nodiscard]] double total_s() const;
};

// programs[index]'s iteration [0, iteration], the pipeline flush ending at `flush_end`.
StageTimeBreakdown stage_time_breakdown(const CompiledPlan& plan, const ExecutionResult& exec, size_t index,
                                        Time iteration, Time flush_end);

}  // namespace plansim
