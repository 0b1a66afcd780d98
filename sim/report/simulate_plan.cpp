#include "sim/report/simulate_plan.hpp"

#include <fmt/format.h>

#include <chrono>

#include "sim/coll/collective_runner.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/runner_comm.hpp"

namespace plansim {

PlanRun simulate_plan(const Scenario& s, const Topology& topo) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanRun run;
  run.plan = compile_plan(s);
  const ComputeModel compute(ComputeParams::defaults(topo.gpu_spec(), s.model.dtype).with(s.compute));
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net);
  RunnerComm comm(runner);
  run.exec = execute(run.plan, compute, comm, sim);
  run.report = build_report(s, run.plan, run.exec, topo.gpu_spec());
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.report.notes = fmt::format("every rank and op simulated ({} ranks, {} events, {} transfers); no symmetry folding",
                                 run.plan.world, run.exec.events, run.exec.comm_calls);
  return run;
}

}  // namespace plansim
