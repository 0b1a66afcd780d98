#pragma once
// A proven lower bound on a plan's iteration time (`plansim run --bound`, the search's pruning),
// from the same compiled programs the simulator runs, without simulating: every op at a duration it
// can never beat, then the longest path of the program DAG with its rendezvous.
//   * compute: its unslowed time (the executor only ever slows compute, by comm_slowdown);
//   * a transfer: CollectiveRunner::lower_bound (no flow's max-min rate exceeds its rate alone, no
//     link moves more than its capacity);
//   * DAG: an op starts when its deps and its stream predecessor have ended (send/recv: deps only),
//     a collective when every member has issued it, a send/recv pair when both sides have; it ends
//     its duration later. The simulated run obeys the same constraints with durations at least
//     these, so its iteration time is at least the longest path (max-plus is monotone).
// Dropping ranks from the DAG (and so members from its rendezvous) only shortens the longest path
// of the ranks kept, so any subset of ranks with its own transfers' bounds is still a lower bound:
// bound_plan keeps TP rank 0 of the first data-parallel replica (CompileOptions fold_tp and
// first_replica_only), with each collective bounded on its whole group. Replicas run identical
// programs, so where their transfers' bounds are equal (equal links) nothing is lost.
// Equal to the simulated time when nothing is slowed: no compute overlaps a transfer of its rank
// with comm_slowdown > 0 and no two transfers share a link at once (up to 1 ps per transfer on the
// critical path: flows finish at their exact time rounded to the nearest picosecond, the bound
// rounds down).
#include "sim/compute/compute_model.hpp"
#include "sim/plan/program.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

struct NcclModelParams;

struct PlanBound {
  Time iteration;          // the lower bound
  size_t programs = 0;     // programs evaluated
  size_t ops = 0;          // ops evaluated
  size_t transfers = 0;    // distinct transfer calls bounded
  double wall_seconds = 0; // host time, compilation included
};

// The longest path of `plan`'s DAG with the durations above (nccl: the scenario's calibration, or
// null for the defaults).
PlanBound bound_programs(const CompiledPlan& plan, const ComputeModel& compute, const Topology& topo,
                         const NcclModelParams* nccl);

// Compiles `s` as `plansim run` does (TP folded when tp > 1) and bounds it.
PlanBound bound_plan(const Scenario& s, const Topology& topo);

}  // namespace plansim
