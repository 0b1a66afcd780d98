#pragma once
// Zero-bubble schedules (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, arXiv 2401.10241,
// Sec. 2): backward split into B (input gradient, on the critical path) and W (weight gradient,
// deferrable). ZB-H1 "generally follows the 1F1B schedule, but it adjusts the starting points of W
// depending on the number of warm-up microbatches" (Sec. 2.1); per Sec. 2.3 worker i (1-based) then
// holds (p − i + 1)·M_B + (i − 1)·M_W of activations for ZB-H1 and (2p − 2i + 1)·M_B + (2i − 2)·M_W
// for ZB-H2, so the peak is p·M_B and (2p − 1)·M_B. Stage s (0-based) here:
//   warm-up:  min(m, limit − 1) forwards, limit = k·(p − s) − (k − 1) micro-batches awaiting B
//             (ZB-H1 k = 1: 1F1B's p − s; ZB-H2 k = 2: 2(p − s) − 1, the extra forwards filling
//             the bubble before the first B);
//   steady:   F, B, then the oldest pending W once more than lag = k·s are pending;
//   cool-down: B, then W under the same rule; then the remaining W's (filling the tail bubble).
// With F = B = W and m ≥ p (ZB-H1) every stage idles (p − 1)·W: a third of 1F1B's (p − 1)(F + B + W).
#include <memory>

#include "sim/sched/schedule.hpp"

namespace plansim {

// Stage orders of the schedule above for memory factor k (1: ZB-H1, 2: ZB-H2).
StageOrders zero_bubble_orders(const ScheduleShape& shape, int k);

}  // namespace plansim
