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

PlanRun simulate_plan(const Scenario& s, const Topology& topo, const SimulateOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanRun run;
  run.plan = compile_plan(s, CompileOptions{options.symmetry});
  const ComputeModel compute(ComputeParams::defaults(topo.gpu_spec(), s.model.dtype).with(s.compute));
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net);
  RunnerComm comm(runner);
  const bool memo = options.symmetry && tp_links_private(run.plan, topo);
  MemoizedTpComm memo_comm(comm, sim, topo);
  run.exec = execute(run.plan, compute, memo ? static_cast<CommService&>(memo_comm) : comm, sim);
  run.report = build_report(s, run.plan, run.exec, topo.gpu_spec());
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string how = run.plan.fold > 1
                        ? fmt::format("TP folded: {} of {} ranks executed, their non-TP transfers replayed for the {} TP "
                                      "siblings (assumed in lockstep; --no-symmetry runs them all)", run.plan.programs.size(), run.plan.world, run.plan.fold)
                        : fmt::format("every rank executed ({} ranks)", run.plan.world);
  if (s.parallel.tp > 1)
    how += memo ? fmt::format("; TP collectives memoised ({} distinct, {} reused: TP links carry no other traffic)",
                            memo_comm.misses(), memo_comm.hits())
                : options.symmetry ? "; TP collectives on the flow network (their links carry other traffic too)"
                                   : "; TP collectives on the flow network (--no-symmetry)";
  run.report.notes = fmt::format("{}; {} events, {} transfers; fold divergent {} max skew {} us", how, run.exec.events, run.exec.comm_calls, run.exec.fold_divergent, run.exec.fold_max_skew.micros());
  return run;
}

}  // namespace plansim
