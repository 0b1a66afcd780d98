// compile_plan: the plan's programs, one per simulated rank (rank_builder.hpp emits each), from the
// pipeline schedule's op orders, the cost table and the communication groups.
#include "sim/plan/plan_compiler.hpp"

#include <cmath>

#include "sim/core/assert.hpp"
#include "sim/plan/a2a_overlap.hpp"
#include "sim/plan/rank_builder.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {

using rank_build::Context;
using rank_build::GroupTable;
using rank_build::RankBuilder;

CompiledPlan compile_plan(const Scenario& s, const CompileOptions& options) {
  const ParallelSpec& par = s.parallel;
  CompiledPlan plan;
  plan.world = par.world();
  plan.stages = par.pp;
  plan.micro_batches = s.micro_batches();
  auto sched = make_schedule(s.schedule.kind);
  const ScheduleShape shape{par.pp, plan.micro_batches, s.schedule.virtual_stages};
  const PipelineLayout lay = sched->layout(shape);
  StageOrders orders = sched->build(shape);
  if (s.schedule.moe_a2a_overlap) pair_for_a2a_overlap(orders);
  check_orders(orders, lay, sched->splits_backward());

  RankMapping map(par);
  CostTable costs(s, plan.costs);
  GroupTable groups(plan.groups);
  const double e = activation_element_bytes(s.model.dtype);  // fp8 runs move bf16 activations
  const double tokens = static_cast<double>(s.training.micro_batch * s.model.seq_len) / par.cp;
  const LayerPartition layers(s.model.layers, lay.pieces(), par.stage_layers, par.split_embedding, par.split_loss);
  const auto chunk_layers = layers_per_chunk(lay, layers);
  plan.held = stage_holdings(orders, sched->splits_backward(), &chunk_layers);
  Context c{&s, &map, &costs, &groups, &orders, &lay, &layers, sched->splits_backward(), lay.pieces(), 0, 0, 0, 0, 0};
  c.act_bytes = tokens * static_cast<double>(s.model.hidden) * e;
  c.pp_bytes = c.act_bytes / (par.sequence_parallel ? par.tp : 1);
  c.kv_bytes = static_cast<double>(s.training.micro_batch * s.model.seq_len) * 2 * s.model.kv_heads *
               static_cast<double>(s.model.head_dim()) / par.tp * e;
  // All-to-all: every token goes out top_k times (one copy per chosen expert; the share bound for
  // this rank's own experts stays local, which the collective's (n−1)/n accounts). With a capacity
  // factor Megatron sends the padded per-expert buffers: ceil(cf·t·k/E) tokens for each of E experts.
  // A rank dispatches only its sequence-parallel shard: Megatron-Core's MoE layer runs on the SP-sharded
  // hidden states and its token dispatchers send each TP rank's own tokens (token_dispatcher.py's
  // notation: "num_local_tokens: S/TP*B, num_global_tokens: num_local_tokens*TP*EP"); the expert TP group
  // then gathers what its ranks received. Without SP every TP rank holds (and would send) all tokens.
  if (const auto& moe = s.model.moe) {
    const double h = static_cast<double>(s.model.hidden);
    const double local = tokens / (par.sequence_parallel ? par.tp : 1);
    c.a2a_bytes = moe->capacity_factor
                      ? std::ceil(*moe->capacity_factor * local * moe->top_k / moe->experts) * moe->experts * h * e
                      : local * moe->top_k * h * e;
    c.token_bytes = local * h * e;
  }
  PLANSIM_ASSERT(!(options.fold_tp && options.fold_dp), "compile_plan: fold TP or DP, not both");
  PLANSIM_ASSERT(options.fold_dp_dim == Dim::dp || options.fold_dp_dim == Dim::ep,
                 "compile_plan: fold_dp folds the dp or the ep coordinate");
  const Dim fold_dim = options.fold_dp ? options.fold_dp_dim : Dim::tp;
  PLANSIM_ASSERT(options.fold_block >= 1 && map.size(fold_dim) % options.fold_block == 0,
                 "compile_plan: the fold block must divide the folded dimension");
  const bool fold = (options.fold_tp || options.fold_dp) && map.size(fold_dim) / options.fold_block > 1;
  if (fold) {
    plan.fold = map.size(fold_dim) / options.fold_block;
    plan.fold_dim = fold_dim;
    RankCoords one = map.coords(0);
    one[fold_dim] = options.fold_block;
    plan.fold_stride = map.rank(one);
  }
  plan.program_of_rank.assign(static_cast<size_t>(plan.world), -1);
  std::vector<std::pair<size_t, size_t>> sizes(static_cast<size_t>(par.pp));  // per stage: last program's ops, deps
  for (int r = 0; r < plan.world; ++r) {
    if (fold && map.coords(r)[fold_dim] >= options.fold_block) continue;
    if (options.first_replica_only && (map.coords(r)[Dim::dp] != 0 || map.coords(r)[Dim::ep] != 0)) continue;
    plan.program_of_rank[static_cast<size_t>(r)] = static_cast<int32_t>(plan.programs.size());
    Program& p = plan.programs.emplace_back();
    p.rank = static_cast<uint32_t>(r);
    // Ranks of one stage get programs of the same size: reserve it rather than grow op by op.
    auto& [ops, deps] = sizes[static_cast<size_t>(map.coords(r)[Dim::pp])];
    p.ops.reserve(ops);
    p.deps.reserve(deps);
    RankBuilder(c, p).build();
    ops = p.ops.size();
    deps = p.deps.size();
  }
  for (Group& g : plan.groups)
    for (uint32_t m : g.ranks)
      if (plan.program_of_rank[m] >= 0) ++g.simulated_members;
  return plan;
}

}  // namespace plansim
