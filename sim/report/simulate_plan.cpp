// The exact-symmetry policy (plan/symmetry.hpp, plan/replica_planes.hpp), most economical first:
//  1. TP folded, one network plane: only TP rank 0's transfers on the flow network, the siblings'
//     copies checked to be the same calls on disjoint, renamed links (needs the TP memo);
//  2. TP folded, every sibling's copy on the network, kept while the copies land together;
//  3. every rank executed.
// A step that finds its shortcut inexact throws before finishing and the next one runs; the notes
// and Report::symmetry say which one produced the report and why the others did not.
#include "sim/report/simulate_plan.hpp"

#include <fmt/format.h>

#include <chrono>
#include <optional>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/core/assert.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/replica_planes.hpp"
#include "sim/plan/runner_comm.hpp"
#include "sim/plan/symmetry.hpp"

namespace plansim {
namespace {

struct Execution {
  ExecutionResult exec;
  bool memo = false;
  size_t memo_distinct = 0, memo_reused = 0;
};

// One run of `plan` on a fresh simulation and flow network; with `memo` (TP links private, see
// tp_links_private) the TP collectives memoised; with `planes` (needs the memo) only replica 0 of
// each folded transfer on the network. Throws PlaneMismatch (planes) or FoldDivergence (folded)
// when that shortcut is not exact.
Execution execute_on_network(const CompiledPlan& plan, const ComputeModel& compute, const NcclModelParams* nccl,
                             const Topology& topo, bool memo, bool planes) {
  PLANSIM_ASSERT(!planes || (memo && plan.fold > 1), "network planes need a folded plan and the TP memo");
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, nccl ? *nccl : NcclModelParams{});
  Execution out;
  out.memo = memo;
  std::optional<ReplicaPlanes> replica_planes;
  if (planes) replica_planes.emplace(topo, plan.fold);
  RunnerComm comm(runner, planes ? &*replica_planes : nullptr);
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
  std::string how, planes_note;
  Execution e;
  bool done = false;
  std::string folding = "off", planes = "off";
  if (options.symmetry && s.parallel.tp > 1) {
    run.plan = compile_plan(s, CompileOptions{true});
    const bool memo = tp_links_private(run.plan, topo);
    if (memo) {
      try {
        e = execute_on_network(run.plan, compute, s.calibration.collectives.get(), topo, true, true);
        done = true;
        planes = "isomorphic";
      } catch (const PlaneMismatch& m) {
        planes_note = fmt::format("; the siblings' network planes are not isomorphic ({}), so every copy ran on the "
                                  "network", m.what());
      }
    }
    if (!done) {
      try {
        e = execute_on_network(run.plan, compute, s.calibration.collectives.get(), topo, memo, false);
        done = true;
        planes = "shared";
      } catch (const FoldDivergence& d) {
        folding = "abandoned";
        how = fmt::format("{}, so every rank was executed ({} ranks)", d.what(), s.parallel.world());
      }
    }
    if (done) {
      folding = "exact";
      how = planes == "isomorphic"
                ? fmt::format("TP folded (exact: the {} TP siblings' copies of every non-TP transfer are the same calls on "
                              "disjoint links of equal bandwidth, renamed, so they land with TP rank 0's; only its "
                              "transfers ran on the flow network): {} of {} ranks executed",
                              run.plan.fold, run.plan.programs.size(), run.plan.world)
                : fmt::format("TP folded (exact: every non-TP transfer's copies for the {} TP siblings landed together, "
                              "so the siblings stayed in lockstep): {} of {} ranks executed{}",
                              run.plan.fold, run.plan.programs.size(), run.plan.world, planes_note);
    }
  }
  if (!done) {
    run.plan = compile_plan(s, CompileOptions{false});
    e = execute_on_network(run.plan, compute, s.calibration.collectives.get(), topo, options.symmetry && tp_links_private(run.plan, topo), false);
    if (how.empty()) how = fmt::format("every rank executed ({} ranks)", run.plan.world);
    planes = "off";
  }
  run.exec = std::move(e.exec);
  run.report = build_report(s, run.plan, run.exec, topo.gpu_spec(), options.op_records);
  run.report.compute = compute.params();
  for (size_t g = 0; g < topo.num_gpus(); ++g) run.report.gpu_ids.push_back(topo.topology_gpu(GpuId::from(g)).value);
  run.report.topology_gpus = topo.topology_gpus();
  run.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s.parallel.tp > 1)
    how += e.memo ? fmt::format("; TP collectives memoised ({} distinct, {} reused: TP links carry no other traffic)",
                                e.memo_distinct, e.memo_reused)
                  : options.symmetry ? "; TP collectives on the flow network (their links carry other traffic too)"
                                     : "; TP collectives on the flow network (--no-symmetry)";
  run.report.notes = fmt::format("{}; {} events, {} transfers", how, run.exec.events, run.exec.comm_calls);
  run.report.symmetry = {folding, run.plan.programs.size(), e.memo, planes};
  return run;
}

}  // namespace plansim
