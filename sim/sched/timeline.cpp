#include "sim/sched/timeline.hpp"

#include <algorithm>
#include <limits>

#include "sim/core/assert.hpp"

namespace plansim {

double ScheduleTiming::bubble_fraction(int s) const {
  const auto i = static_cast<size_t>(s);
  return (makespan - busy[i]) / makespan;
}
double ScheduleTiming::bubble_overhead(int s) const {
  const auto i = static_cast<size_t>(s);
  return (makespan - busy[i]) / busy[i];
}

ScheduleTiming time_schedule(const StageOrders& orders, const ScheduleShape& sh, bool split, const OpDurations& d) {
  const int p = sh.stages, v = sh.virtual_stages, m = sh.micro_batches;
  const int nvs = p * v;
  constexpr double kNotYet = std::numeric_limits<double>::infinity();
  auto key = [&](int mb, int vs) { return static_cast<size_t>(mb * nvs + vs); };
  std::vector<double> f_end(static_cast<size_t>(m * nvs), kNotYet), b_end = f_end;
  ScheduleTiming r;
  r.busy.assign(static_cast<size_t>(p), 0);
  r.first_start.assign(static_cast<size_t>(p), kNotYet);
  r.last_end.assign(static_cast<size_t>(p), 0);
  r.peak_in_flight.assign(static_cast<size_t>(p), 0);
  r.peak_awaiting_b.assign(static_cast<size_t>(p), 0);
  std::vector<int> awaiting_b(static_cast<size_t>(p), 0);
  std::vector<size_t> pc(static_cast<size_t>(p), 0);
  std::vector<double> free_at(static_cast<size_t>(p), 0);
  std::vector<int> in_flight(static_cast<size_t>(p), 0);
  size_t left = 0;
  for (const auto& o : orders) left += o.size();
  while (left > 0) {
    bool progressed = false;
    for (int s = 0; s < p; ++s) {
      const auto su = static_cast<size_t>(s);
      while (pc[su] < orders[su].size()) {
        const SchedOp& op = orders[su][pc[su]];
        const int vs = virtual_stage(s, op.chunk, p);
        double ready = 0, dur = 0;
        if (op.phase == Phase::F) {
          if (vs > 0) ready = f_end[key(op.micro_batch, vs - 1)] + d.comm;
          dur = d.f;
        } else if (op.phase == Phase::B) {
          ready = vs == nvs - 1 ? f_end[key(op.micro_batch, vs)] : b_end[key(op.micro_batch, vs + 1)] + d.comm;
          dur = d.b;
        } else {
          ready = b_end[key(op.micro_batch, vs)];
          dur = d.w;
        }
        if (ready == kNotYet) break;
        const double start = std::max(ready, free_at[su]);
        const double end = start + dur;
        free_at[su] = end;
        r.busy[su] += dur;
        r.first_start[su] = std::min(r.first_start[su], start);
        r.last_end[su] = std::max(r.last_end[su], end);
        if (op.phase == Phase::F) {
          f_end[key(op.micro_batch, vs)] = end;
          r.peak_in_flight[su] = std::max(r.peak_in_flight[su], ++in_flight[su]);
          r.peak_awaiting_b[su] = std::max(r.peak_awaiting_b[su], ++awaiting_b[su]);
        } else if (op.phase == Phase::B) {
          b_end[key(op.micro_batch, vs)] = end;
          --awaiting_b[su];
          if (!split) --in_flight[su];
        } else {
          --in_flight[su];
        }
        ++pc[su];
        --left;
        progressed = true;
      }
    }
    PLANSIM_ASSERT(progressed, "schedule deadlocks: an op waits for one that can never run");
  }
  r.makespan = *std::max_element(r.last_end.begin(), r.last_end.end());
  return r;
}

}  // namespace plansim
