#pragma once
// Measured op times -> the simulator's ExecutionResult, so that sim/report's writers produce the same
// Report JSON (with per-op `ops` for `plansim validate`) and Perfetto trace as `plansim run`. GPU-free.
#include <vector>

#include "sim/plan/executor.hpp"
#include "sim/plan/program.hpp"

namespace plansim::hw {

struct OpSpan {
  double start_s = 0;  // from the rank's iteration start (its zero event)
  double end_s = 0;
};

// spans[rank][op], for every program of an unfolded plan. iteration = the latest end over all ranks
// (every rank's zero is taken after a barrier, so all start together).
ExecutionResult measured_execution(const CompiledPlan& plan, const std::vector<std::vector<OpSpan>>& spans);

// Per op, the mean over iterations of start and end: spans_by_iteration[iteration][rank][op].
std::vector<std::vector<OpSpan>> mean_spans(const std::vector<std::vector<std::vector<OpSpan>>>& spans_by_iteration);

}  // namespace plansim::hw
