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

// The simulator starts a collective when every member has issued it and a send/recv pair when both
// sides have; a GPU records when each rank's stream got there. Moves every collective's start on every
// member to the latest arrival among its members (by group and seq), and each send's and recv's to the
// later of the pair's arrivals (by sender, receiver and tag), so that the op's duration is the transfer,
// not the wait for the slowest peer (which the simulator counts as the waiting rank's idle time).
// Ends stay. All ranks' zeros are aligned by the barrier before the iteration.
void align_communication_starts(const CompiledPlan& plan, std::vector<std::vector<OpSpan>>& spans);

// Iteration times (the latest end over all ranks, per timed iteration) and their spread.
struct IterationStats {
  std::vector<double> seconds;  // in run order
  double min = 0, median = 0, max = 0, mean = 0;
};
IterationStats iteration_stats(const std::vector<std::vector<std::vector<OpSpan>>>& spans_by_iteration);

}  // namespace plansim::hw
