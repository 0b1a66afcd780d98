#include "sim/report/simulate_plan.hpp"

#include <fmt/format.h>

#include <chrono>

#include "sim/coll/collective_runner.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/runner_comm.hpp"
#include "sim/plan/symmetry.hpp"

namespace plansim {
namespace {

struct Execution {
  ExecutionResult exec;
  bool memo = false;
  size_t memo_distinct = 0, memo_reused = 0;
};

// One run of `plan` on a fresh simulation and flow network; the TP memo when allowed and exact.
// Throws FoldDivergence when the plan is TP-folded and the siblings leave lockstep.
Execution execute_on_network(const CompiledPlan& plan, const ComputeModel& compute, const Topology& topo,
                             bool allow_memo) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net);
  RunnerComm comm(runner);
  Execution out;
  out.memo = allow_memo && tp_links_private(plan, topo);
  MemoizedTpComm memo_comm(comm, sim, topo);
  out.exec = execute(plan, compute, out.memo ? static_cast<CommService&>(memo_comm) : comm, sim);
  out.memo_distinct = memo_comm.misses();
  out.memo_reused = memo_comm.hits();
  return out;
}

}  // namespace

PlanRun simulate_plan(const Scenario& s, const Topology& topo, const SimulateOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanRun run;
  const ComputeModel compute(ComputeParams::defaults(topo.gpu_spec(), s.model.dtype).with(s.compute));
  std::string how;
  Execution e;
  bool done = false;
  std::string folding = "off";
  if (options.symmetry && s.parallel.tp > 1) {
    run.plan = compile_plan(s, CompileOptions{true});
    try {
      e = execute_on_network(run.plan, compute, topo, true);
      done = true;
      folding = "exact";
      how = fmt::format("TP folded (exact: every non-TP transfer's copies for the {} TP siblings landed together, so "
                        "the siblings stayed in lockstep): {} of {} ranks executed",
                        run.plan.fold, run.plan.programs.size(), run.plan.world);
    } catch (const FoldDivergence& d) {
      folding = "abandoned";
      how = fmt::format("{}, so every rank was executed ({} ranks)", d.what(), s.parallel.world());
    }
  }
  if (!done) {
    run.plan = compile_plan(s, CompileOptions{false});
    e = execute_on_network(run.plan, compute, topo, options.symmetry);
    if (how.empty()) how = fmt::format("every rank executed ({} ranks)", run.plan.world);
  }
  run.exec = std::move(e.exec);
  run.report = build_report(s, run.plan, run.exec, topo.gpu_spec());
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s.parallel.tp > 1)
    how += e.memo ? fmt::format("; TP collectives memoised ({} distinct, {} reused: TP links carry no other traffic)",
                                e.memo_distinct, e.memo_reused)
                  : options.symmetry ? "; TP collectives on the flow network (their links carry other traffic too)"
                                     : "; TP collectives on the flow network (--no-symmetry)";
  run.report.notes = fmt::format("{}; {} events, {} transfers", how, run.exec.events, run.exec.comm_calls);
  run.report.symmetry = {folding, run.plan.programs.size(), e.memo};
  return run;
}

}  // namespace plansim
