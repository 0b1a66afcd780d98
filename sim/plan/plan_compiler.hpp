#pragma once
// Scenario -> per-rank programs (see program.hpp). What each parallel dimension emits:
//   TP: per layer, after the attention and the MLP block, an all-reduce of the block output (forward
//       and backward); with sequence parallelism an all-gather before and a reduce-scatter after.
//   CP: ring attention's K/V exchange as an all-gather of K,V before the attention core (forward)
//       and a reduce-scatter of dK,dV after its backward.
//   EP: all-to-all dispatch before and combine after the experts (forward and backward).
//   PP: send/recv of activations (forward) and their gradients (backward) between virtual stages,
//       1/t of the activation with sequence parallelism (Megatron's scatter/gather).
//   DP: gradients reduced in buckets of `grad_bucket` as the last micro-batch's backward produces
//       them (no DP sync before: gradient accumulation); all-reduce for ZeRO-0, reduce-scatter for
//       ZeRO ≥ 1 followed by a parameter all-gather (prefetched under the forward when
//       overlap.param_gather, else after the optimizer step); ZeRO-3 gathers each layer's parameters
//       before its forward and its backward (prefetch depth one) and reduce-scatters per layer.
//   Recompute: full re-runs the chunk's forward (with its TP collectives) before its backward;
//       selective re-runs the attention core. Both are flagged `recompute` (HFU, not MFU).
#include "sim/plan/program.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim {

struct CompileOptions {
  // Emit programs only for TP rank 0 of each TP group (TP siblings run identical programs); see
  // CompiledPlan::fold. For the simulator at scale; the hw back end needs every program.
  bool fold_tp = false;
  // Emit programs only for DP replica 0 (ranks whose "dp" coordinate is 0; with EP that is the
  // expert-DP coordinate, dp/ep): DP replicas run identical programs (see CompiledPlan::fold_dim).
  // Exclusive with fold_tp.
  bool fold_dp = false;
  // The data-parallel coordinate fold_dp folds: dp (replicas of whole EP groups), or ep (the ranks of an
  // EP group with the experts split as the dense layers: the same programs, each on its own experts).
  Dim fold_dp_dim = Dim::dp;
  // Folding in blocks of `fold_block` replicas (a divisor of the folded dimension's size): ranks whose
  // coordinate is below it have programs, and the block repeats every fold_block·stride ranks
  // (CompiledPlan::fold = size / fold_block). For symmetries that shift replicas by more than one.
  int fold_block = 1;

  // Emit programs only for the first data-parallel replica (DP and EP coordinates 0): collectives
  // across replicas keep every member in their group but have one simulated member. Not runnable
  // (nothing executes the other members); for the lower bound (report/plan_bound.hpp), which may
  // drop ranks from the DAG it bounds.
  bool first_replica_only = false;
};

CompiledPlan compile_plan(const Scenario& s, const CompileOptions& options = {});

}  // namespace plansim
