#pragma once
// Zero-bubble schedules (Qi et al. 2023, "Zero Bubble Pipeline Parallelism"): backward split into
// B (input gradient, on the critical path) and W (weight gradient, deferrable). The order is built by
// a unit-time list scheduler: a stage runs a W when more than `w_cap` are pending, else a ready B,
// else a ready F while fewer than `limit` micro-batches await their B, else a pending W (filling what
// would be a bubble), else idles. ZB-H1: limit p−s (1F1B's), w_cap p−1; ZB-H2: limit 2(p−s)−1.
// Deferred W's keep their GEMM inputs alive; the memory model counts a micro-batch until its W.
#include <functional>
#include <memory>
#include <string>

#include "sim/sched/schedule.hpp"

namespace plansim {

StageOrders zero_bubble_orders(const ScheduleShape& shape, const std::function<int(int stage)>& in_flight_limit,
                               const std::function<int(int stage)>& w_cap);

}  // namespace plansim
