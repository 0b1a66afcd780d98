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

ScheduleTiming time_schedule(const StageOrders& orders, const PipelineLayout& lay, bool split, const OpDurations& d) {
  const int p = lay.stages(), m = lay.micro_batches();
  const int nvs = lay.pieces();
  constexpr double kNotYet = std::numeric_limits<double>::infinity();
  auto key = [&](int mb, int vs) { return static_cast<size_t>(mb * nvs + vs); };
  std::vector<double> f_end(static_cast<size_t>(m * nvs), kNotYet), b_end = f_end;
  ScheduleTiming r;
  r.busy.assign(static_cast<size_t>(p), 0);
  r.first_start.assign(static_cast<size_t>(p), kNotYet);
  r.last_end.assign(static_cast<size_t>(p), 0);
  std::vector<size_t> pc(static_cast<size_t>(p), 0);
  std::vector<double> free_at(static_cast<size_t>(p), 0);
  size_t left = 0;
  for (const auto& o : orders) left += o.size();
  // When op can start (its inputs' readiness) and how long it takes.
  auto ready_of = [&](int s, const SchedOp& op, double& dur) {
    const int vs = lay.piece(s, op.chunk);
    if (op.phase == Phase::F) {
      dur = d.f;
      return vs > 0 ? f_end[key(op.micro_batch, vs - 1)] + d.comm : 0.0;
    }
    if (op.phase == Phase::B) {
      dur = op.with_weight ? d.b + d.w : d.b;
      return vs == nvs - 1 ? f_end[key(op.micro_batch, vs)] : b_end[key(op.micro_batch, vs + 1)] + d.comm;
    }
    dur = d.w;
    return b_end[key(op.micro_batch, vs)];
  };
  while (left > 0) {
    bool progressed = false;
    for (int s = 0; s < p; ++s) {
      const auto su = static_cast<size_t>(s);
      while (pc[su] < orders[su].size()) {
        const SchedOp& op = orders[su][pc[su]];
        const size_t n = op.paired ? 2 : 1;  // a paired F and its B run as one unit
        double ready = 0, dur = 0;
        for (size_t k = 0; k < n; ++k) {
          double one = 0;
          ready = std::max(ready, ready_of(s, orders[su][pc[su] + k], one));
          dur += one;
        }
        if (ready == kNotYet) break;
        const double start = std::max(ready, free_at[su]);
        const double end = start + dur;
        free_at[su] = end;
        r.busy[su] += dur;
        r.first_start[su] = std::min(r.first_start[su], start);
        r.last_end[su] = std::max(r.last_end[su], end);
        for (size_t k = 0; k < n; ++k) {
          const SchedOp& o = orders[su][pc[su] + k];
          const int vs = lay.piece(s, o.chunk);
          if (o.phase == Phase::F) f_end[key(o.micro_batch, vs)] = end;
          if (o.phase == Phase::B) b_end[key(o.micro_batch, vs)] = end;
        }
        pc[su] += n;
        left -= n;
        progressed = true;
      }
    }
    PLANSIM_ASSERT(progressed, "schedule deadlocks: an op waits for one that can never run");
  }
  r.makespan = *std::max_element(r.last_end.begin(), r.last_end.end());
  r.held = stage_holdings(orders, split);
  for (const StageHolding& h : r.held) {
    r.peak_in_flight.push_back(h.peak_chunks());
    r.peak_awaiting_b.push_back(h.peak_awaiting_b());
  }
  return r;
}

}  // namespace plansim
