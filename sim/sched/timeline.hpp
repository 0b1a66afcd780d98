#pragma once
// Times a schedule's orders with fixed op durations and a fixed stage-to-stage latency: the
// closed-form reference for the schedules (and for tests of the full executor). With vs the piece
// (virtual stage, layout.hpp) an op's chunk holds: F(mb, vs) after F(mb, vs−1) + comm; B(mb, vs)
// after B(mb, vs+1) + comm (the last piece's B after its own F); W(mb, vs) after B(mb, vs); each
// stage runs its order sequentially. A B `with_weight` takes b + w. A `paired` F and the B after it
// run as one unit (DualPipe's overlapped F&B): it starts when both are ready, lasts f + b (compute
// does not shrink; the overlap hides communication) and both end with it.
#include <vector>

#include "sim/sched/holding.hpp"
#include "sim/sched/schedule.hpp"

namespace plansim {

struct OpDurations {
  double f = 1;  // per chunk
  double b = 2;  // per chunk: input + weight gradient, or input gradient only when split
  double w = 0;  // per chunk, when split
  double comm = 0;
};

struct ScheduleTiming {
  double makespan = 0;
  std::vector<double> busy;       // per stage
  std::vector<double> first_start;  // per stage
  std::vector<double> last_end;     // per stage
  std::vector<StageHolding> held;    // per stage: what its order keeps alive (holding.hpp)
  std::vector<int> peak_in_flight;   // per stage: max (mb, chunk) pairs between F start and last backward end
  std::vector<int> peak_awaiting_b;  // per stage: max (mb, chunk) pairs between F start and B end
  [[nodiscard]] double bubble_fraction(int stage) const;  // idle / makespan
  [[nodiscard]] double bubble_overhead(int stage) const;  // idle / busy
};

ScheduleTiming time_schedule(const StageOrders& orders, const PipelineLayout& layout, bool split_backward,
                             const OpDurations& d);

}  // namespace plansim
