// The exact-symmetry policy (plan/symmetry.hpp, plan/replica_planes.hpp), most economical first:
//  0. DP folded, one network plane: only DP replica 0's ranks executed and its transfers on the
//     flow network, every replica's copies checked (once per distinct call) to be the same calls on
//     disjoint, renamed links, and the DP collectives (which span the replicas) checked to load
//     every replica's plane alike and run with their duplicate constraints dropped; with the experts
//     folded (expert_tp), EP all-to-alls spanning blocks too, mapped flow onto flow by the symmetry
//     (replica_orbits.hpp), in blocks that keep expert groups groups (fold_equivariance.hpp);
//  1. TP folded, one network plane: only TP rank 0's transfers on the flow network, the siblings'
//     copies checked to be the same calls on disjoint, renamed links (needs the TP memo);
//  2. TP folded, every sibling's copy on the network, kept while the copies land together;
//  3. every rank executed.
// A step that finds its shortcut inexact throws before finishing and the next one runs; the notes
// and Report::symmetry say which one produced the report and why the others did not.
#include "sim/report/simulate_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/core/assert.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/plan/fold_equivariance.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/rank_mapping.hpp"
#include "sim/plan/replica_planes.hpp"
#include "sim/plan/runner_comm.hpp"
#include "sim/plan/symmetry.hpp"

namespace plansim {
namespace {

struct Execution {
  ExecutionResult exec;
  bool memo = false;
  size_t memo_distinct = 0, memo_reused = 0;
  size_t checked = 0, projected = 0;  // planes: distinct replicated calls checked, spanning calls projected
  size_t shared_orbits = 0;           // DP planes: orbits of links that several replicas share
};

// Network planes: every replicated transfer's copies checked before the run (once per distinct
// call), then every transfer spanning the replicas projected, so that the planes are complete when
// the first is projected (a link it crossed outside every plane could not join one later) and a
// plan that cannot be folded is given up before it runs.
void check_planes_ahead(const CompiledPlan& plan, RunnerComm& comm, bool memo) {
  std::vector<GpuId> ranks;
  // Each transfer of program `p` that is replicated (or spanning), as the request replica 0 issues.
  auto visit = [&](const Program& p, bool spanning, auto&& fn) {
    for (const ProgramOp& op : p.ops) {
      CommRequest r;
      r.op = op.comm;
      r.bytes = Bytes(op.bytes);
      if (op.kind == OpKind::collective) {
        const Group& g = plan.groups[op.group];
        const bool replicated = g.simulated_members == g.ranks.size();
        if (replicated == spanning || (memo && g.dim == Dim::tp)) continue;
        ranks.clear();
        for (uint32_t m : g.ranks) ranks.push_back(GpuId(m));
        r.group = op.group;
        r.dim = g.dim;
        if (replicated) r.copies = static_cast<uint32_t>(plan.fold);
      } else if (op.kind == OpKind::send && !spanning) {
        ranks = {GpuId(p.rank), GpuId(op.peer)};
        r.op = CommOp::send_recv;
        r.dim = Dim::pp;
        r.copies = static_cast<uint32_t>(plan.fold);
      } else {
        continue;
      }
      r.copy_stride = static_cast<uint32_t>(plan.fold_stride);
      r.ranks = ranks;
      fn(r);
    }
  };
  // Orbits: the first program's spanning transfers checked against what its replicated ones paired,
  // so that a symmetry that cannot hold is given up before every replica of every call is prepared:
  // first against its send/recvs' pairs (their copies are cheap, RunnerComm::renamed_copies), then
  // against all of them. π only grows, so a spanning transfer refused early is refused at the end too.
  if (!plan.programs.empty()) {
    for (const bool sends_only : {true, false}) {
      visit(plan.programs.front(), false, [&](const CommRequest& r) {
        if (!sends_only || r.op == CommOp::send_recv) comm.check_ahead(r);
      });
      visit(plan.programs.front(), true, [&](const CommRequest& r) { comm.precheck_spanning(r); });
    }
  }
  for (const bool spanning : {false, true})
    for (const Program& p : plan.programs) visit(p, spanning, [&](const CommRequest& r) { comm.check_ahead(r); });
}

// One run of `plan` on a fresh simulation and flow network; with `memo` (TP links private, see
// tp_links_private) the TP collectives memoised; with `planes` (a TP-folded plan needs the memo)
// only replica 0 of each folded transfer issued and on the network. Throws PlaneMismatch (planes)
// or FoldDivergence (folded) when that shortcut is not exact.
Execution execute_on_network(const CompiledPlan& plan, const ComputeModel& compute, const NcclModelParams* nccl,
                             const Topology& topo, bool memo, bool planes) {
  PLANSIM_ASSERT(!planes || (plan.fold > 1 && (memo || plan.fold_dim != Dim::tp)),
                 "network planes need a folded plan, and the TP memo when TP is folded");
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, nccl ? *nccl : NcclModelParams{});
  Execution out;
  out.memo = memo;
  // DP replicas by their orbits (links may be shared, replica_orbits.hpp); TP siblings by planes.
  std::optional<ReplicaPlanes> replica_planes;
  std::optional<ReplicaOrbits> replica_orbits;
  const bool orbits = planes && plan.fold_dim != Dim::tp;
  if (planes && !orbits) replica_planes.emplace(topo, plan.fold);
  if (orbits) replica_orbits.emplace(topo, plan.fold);
  RunnerComm comm = orbits ? RunnerComm(runner, &*replica_orbits) : RunnerComm(runner, planes ? &*replica_planes : nullptr);
  MemoizedTpComm memo_comm(comm, sim, topo, nccl ? *nccl : NcclModelParams{});
  if (planes) check_planes_ahead(plan, comm, memo);
  out.exec = execute(plan, compute, out.memo ? static_cast<CommService&>(memo_comm) : comm, sim, !planes);
  out.memo_distinct = memo_comm.misses();
  out.memo_reused = memo_comm.hits();
  out.checked = comm.checked();
  out.projected = comm.projected();
  if (orbits) out.shared_orbits = replica_orbits->shared_orbits();
  return out;
}

}  // namespace

PlanRun simulate_plan(const Scenario& s, const Topology& topo, const SimulateOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  PlanRun run;
  ComputeParams compute_params = ComputeParams::for_scenario(topo.gpu_spec(), s);
  compute_params.host_link = topo.host_link_bandwidth();
  const ComputeModel compute(compute_params);
  std::string how, planes_note;
  Execution e;
  bool done = false;
  std::string folding = "off", planes = "off", dp_folding = "off", dp_why, tp_abandoned, first_why;
  // DP folding first where it folds more ranks than TP folding would (more DP replicas than TP
  // siblings), else only where TP folding is abandoned.
  // Folded experts (ParallelSpec::expert_tp): an EP group spans TP siblings, which TP folding assumes
  // no transfer but a TP collective does, so only DP folding applies, in blocks that shift every
  // expert group onto a group (plan/fold_equivariance.hpp): whole EP groups, or EP groups spanning all.
  const bool experts_folded = s.model.moe && s.parallel.experts_folded() && s.parallel.ep > 1;
  const bool fold = options.symmetry && !experts_folded;
  // The data-parallel coordinate folded: dp (replicas of whole EP groups), or ep (the ranks of an EP
  // group, identical programs too) where it has more replicas; the other one if that fails.
  const RankMapping map(s.parallel);
  const Dim dp_dim = map.size(Dim::ep) > map.size(Dim::dp) ? Dim::ep : Dim::dp;
  const bool try_dp = options.symmetry && options.fold_dp && map.size(dp_dim) > 1;
  const int dp_replicas = try_dp ? map.size(dp_dim) : 1;
  // Whether TP links are private is a property of the whole world's routes, which every compiled
  // variant (folded in any way, or not) covers: computed once, for the first plan that asks.
  std::optional<bool> tp_private;
  auto links_private = [&](const CompiledPlan& plan) {
    if (!tp_private) tp_private = tp_links_private(plan, topo);
    return *tp_private;
  };
  // DP replicas folded in blocks of 1, 2, 4 replicas (a cyclic symmetry that shifts by a block: a DP
  // ring alternating hops inside and across leaves maps onto itself only under a shift by 2), while
  // a block executes fewer ranks than TP folding would.
  auto fold_dp = [&](Dim dim) {
    const int replicas = map.size(dim);
    const char* what = dim == Dim::ep ? "EP ranks" : "DP replicas";
    const int tp_folded = experts_folded ? 1 : std::max(1, s.parallel.tp);  // ranks TP folding would leave per replica
    for (int block = 1;
         !done && (block == 1 || block * tp_folded < replicas) && replicas % block == 0 && replicas / block > 1;
         block *= 2) {
      if (const std::string broken = expert_groups_break_fold(s, dim, block); !broken.empty()) {
        dp_folding = "abandoned";
        if (block == 1) first_why = broken;
        continue;
      }
      run.plan = compile_plan(s, CompileOptions{.fold_dp = true, .fold_dp_dim = dim, .fold_block = block});
      if (run.plan.fold <= 1) return;
      const bool memo = s.parallel.tp > 1 && links_private(run.plan);
      try {
        e = execute_on_network(run.plan, compute, s.calibration.collectives.get(), topo, memo, true);
        done = true;
        dp_folding = "exact";
        dp_why.clear();
        const std::string tp_why = how.empty() ? "" : fmt::format("; TP folding tried first and abandoned ({})", tp_abandoned);
        if (block == 1 && e.shared_orbits == 0) {
          how = fmt::format(
              "DP folded (exact: the {} {}' copies of every transfer inside a replica are the same "
              "calls on disjoint links of equal bandwidth, renamed ({} distinct calls checked), and the {} "
              "distinct collectives spanning them (DP, and EP where expert groups span replicas) load every "
              "replica's links alike, so every replica lands with replica 0; only its transfers and the spanning "
              "collectives ran on the flow network): "
              "{} of {} ranks executed",
              run.plan.fold, what, e.checked, e.projected, run.plan.programs.size(), run.plan.world);
        } else {
          how = fmt::format(
              "DP folded (exact: blocks of {} {}, {} of them, map onto one another by one permutation "
              "of the links ({} distinct calls checked, every block's against the next), which maps each of "
              "the {} distinct collectives spanning them (DP, and EP where expert groups span blocks) onto itself, "
              "flow by flow or flows onto flows, so every block lands with block 0; "
              "{} orbits of links are shared by several blocks, each carrying their load: a cyclic symmetry "
              "of the max-min system, block 0's transfers and the spanning collectives ran on its quotient): "
              "{} of {} ranks executed",
              block, what, run.plan.fold, e.checked, e.projected, e.shared_orbits, run.plan.programs.size(),
              run.plan.world);
          if (block > 1) how += fmt::format("; blocks of one replica were not exact ({})", first_why);
        }
        how += tp_why;
      } catch (const PlaneMismatch& m) {
        dp_folding = "abandoned";
        dp_why = m.what();
        if (block == 1) first_why = m.what();
      }
    }
    if (!done && !first_why.empty()) dp_why = first_why;
  };
  // The folded coordinate first, then the other data-parallel one where it has replicas.
  auto fold_data_parallel = [&] {
    fold_dp(dp_dim);
    const Dim other = dp_dim == Dim::dp ? Dim::ep : Dim::dp;
    if (!done && map.size(other) > 1) {
      first_why.clear();
      const std::string before = dp_why;
      fold_dp(other);
      if (!done) dp_why = fmt::format("{}; folding {} instead: {}", before, to_string(other), dp_why);
    }
  };
  if (try_dp && (dp_replicas > s.parallel.tp)) fold_data_parallel();
  if (!done && fold && s.parallel.tp > 1) {
    run.plan = compile_plan(s, CompileOptions{true});
    const bool memo = links_private(run.plan);
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
        tp_abandoned = d.what();
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
  if (!done && try_dp && dp_replicas <= s.parallel.tp) fold_data_parallel();
  if (!done && options.symmetry && experts_folded)
    how = fmt::format(
        "every rank executed ({} ranks): the experts fold over the TP, CP and DP ranks (expert_tp {}), so "
        "EP groups span TP siblings and TP folding does not apply",
        s.parallel.world(), s.parallel.expert_tp_size());
  if (!done) {
    run.plan = compile_plan(s, CompileOptions{false});
    e = execute_on_network(run.plan, compute, s.calibration.collectives.get(), topo, options.symmetry && links_private(run.plan), false);
    if (how.empty()) how = fmt::format("every rank executed ({} ranks)", run.plan.world);
    planes = "off";
  }
  if (!dp_why.empty()) how = fmt::format("{}; DP folding abandoned ({})", how, dp_why);
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
  run.report.symmetry = {folding, run.plan.programs.size(), e.memo, planes, dp_folding, dp_why};
  return run;
}

}  // namespace plansim
