// MoE parallel folding (ParallelSpec::expert_tp 1 with tp > 1; Megatron-Core's expert grid, arXiv
// 2504.14960): EP groups over the stage's TP·CP·DP ranks, each rank's sequence shard dispatched, whole
// expert widths, no TP collective around the expert block, expert state per EP rank.
#include <catch2/catch.hpp>

#include <numeric>

#include "tests/support/small_scenario.hpp"

#include "sim/model/memory.hpp"
#include "sim/model/transformer.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/rank_mapping.hpp"

using namespace plansim;

namespace {

std::vector<int> iota(int first, int n) {
  std::vector<int> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), first);
  return v;
}

Scenario moe_scenario(int tp, int dp, int ep, int expert_tp) {
  Scenario s = testing::small_scenario(tp, 1, dp, 2);
  s.model.moe = MoeSpec{64, 4, 768, 1};
  s.parallel.ep = ep;
  s.parallel.expert_tp = expert_tp;
  s.parallel.sequence_parallel = tp > 1;
  s.parallel.domain_gpus = 16;
  return s;
}

// Rank 0's collectives in program order: (dimension of the group, group size, bytes).
std::vector<std::tuple<Dim, size_t, double>> collectives(const CompiledPlan& p) {
  std::vector<std::tuple<Dim, size_t, double>> out;
  for (const auto& o : p.programs[0].ops)
    if (o.kind == OpKind::collective) out.emplace_back(p.groups[o.group].dim, p.groups[o.group].ranks.size(), o.bytes);
  return out;
}

size_t count_dim(const CompiledPlan& p, Dim d, CommOp op) {
  size_t n = 0;
  for (const auto& o : p.programs[0].ops)
    if (o.kind == OpKind::collective && o.comm == op && p.groups[o.group].dim == d) ++n;
  return n;
}

}  // namespace

TEST_CASE("folding: EP groups are consecutive in the stage's tp-cp-dp index, expert TP innermost", "[plan][moe]") {
  ParallelSpec p;
  p.tp = 2, p.dp = 8, p.ep = 8, p.expert_tp = 1, p.sequence_parallel = true;
  const RankMapping folded(p);
  CHECK(folded.size(Dim::ep) == 1);
  CHECK(folded.size(Dim::dp) == 8);
  CHECK(folded.expert_group(0) == iota(0, 8));  // TP siblings 0, 1 and DP replicas 0..3
  CHECK(folded.expert_group(5) == iota(0, 8));
  CHECK(folded.expert_group(9) == iota(8, 8));
  // Unfolded (expert_tp 0, as the dense layers): EP inside DP, strided by TP.
  p.expert_tp = 0;
  const RankMapping plain(p);
  CHECK(plain.expert_group(0) == std::vector<int>{0, 2, 4, 6, 8, 10, 12, 14});
  CHECK(plain.expert_group(1) == std::vector<int>{1, 3, 5, 7, 9, 11, 13, 15});
  // With CP and PP: CP folds in too (Megatron's expert grid spans the stage), PP stays outside.
  ParallelSpec q;
  q.tp = 2, q.cp = 2, q.dp = 4, q.pp = 2, q.ep = 16, q.expert_tp = 1, q.sequence_parallel = true;
  const RankMapping m(q);
  CHECK(m.expert_group(3) == iota(0, 16));
  CHECK(m.expert_group(17) == iota(16, 16));
  // ep 4 of 16 stage ranks: four groups of four consecutive ranks.
  q.ep = 4;
  CHECK(RankMapping(q).expert_group(6) == iota(4, 4));
  // A custom order: the stage index follows it (DP innermost here), so EP takes consecutive DP replicas.
  ParallelSpec r = p;
  r.expert_tp = 1, r.ep = 4;
  r.order = {Dim::dp, Dim::cp, Dim::ep, Dim::tp, Dim::pp};
  const RankMapping dp_inner(r);
  CHECK(dp_inner.expert_group(0) == std::vector<int>{0, 1, 2, 3});
  CHECK(dp_inner.coords(1)[Dim::dp] == 1);
}

TEST_CASE("folding: the expert block's work moves to whole experts on the rank's sequence shard", "[model][moe]") {
  // TP 2, EP 8 of 64 experts, top-4, sequence parallel: unfolded, a rank's experts (8 of them, half
  // width) see the TP group's t·k copies; folded, its experts (8, full width) see its shard's (t/2)·k.
  Scenario s = moe_scenario(2, 8, 8, 0);
  const double t = 1024, k = 4, ff = 768, h = 1024;
  Shard plain{2, 1, 8, true};
  Shard folded = plain;
  folded.expert_tp = 1;
  auto find = [](const LayerForward& f, const std::string& name) {
    for (const auto& o : f.mlp)
      if (o.name == name) return o;
    FAIL("no op " << name);
    return OpCost{};
  };
  const LayerForward u = layer_forward(s.model, 0, 1, plain);
  const LayerForward f = layer_forward(s.model, 0, 1, folded);
  const OpCost up_u = find(u, "expert_up"), up_f = find(f, "expert_up");
  CHECK(up_u.dims.m == Approx(t * k / 8));  // tokens per local expert
  CHECK(up_u.dims.n == Approx(ff / 2));     // the non-gated small scenario: one up matrix, half width
  CHECK(up_f.dims.m == Approx(t / 2 * k / 8));
  CHECK(up_f.dims.n == Approx(ff));
  CHECK(up_f.dims.batch == Approx(8));
  // Same FLOPs per rank either way: t·k·h·ff / tp.
  CHECK(up_f.flops == Approx(up_u.flops));
  CHECK(up_u.flops == Approx(2 * t * k * h * ff / 2));
  const OpCost down_f = find(f, "expert_down");
  CHECK(down_f.dims.k == Approx(ff));
  // The permutation reads the rank's own tokens and writes their k copies.
  CHECK(find(f, "token_permute").hbm_bytes == Approx((t / 2 + t / 2 * k) * h * 2));
}

TEST_CASE("folding: one all-to-all over the stage's consecutive ranks, no TP collective around the experts",
          "[plan][moe]") {
  const double tokens = 1024, h = 1024, e = 2, k = 4;
  const CompiledPlan plain = compile_plan(moe_scenario(2, 8, 8, 0));
  const CompiledPlan folded = compile_plan(moe_scenario(2, 8, 8, 1));
  // Each rank sends its sequence shard's k copies either way; the group is ranks 0..7 when folded.
  auto first_a2a = [](const CompiledPlan& p) {
    for (const auto& o : p.programs[0].ops)
      if (o.kind == OpKind::collective && o.comm == CommOp::all_to_all) return std::make_pair(o.group, o.bytes);
    FAIL("no all-to-all");
    return std::make_pair(uint32_t{0}, 0.0);
  };
  const auto [gu, bu] = first_a2a(plain);
  const auto [gf, bf] = first_a2a(folded);
  CHECK(bu == Approx(tokens / 2 * k * h * e));
  CHECK(bf == Approx(bu));
  CHECK(plain.groups[gu].ranks == std::vector<uint32_t>{0, 2, 4, 6, 8, 10, 12, 14});
  CHECK(folded.groups[gf].ranks == std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  // Every layer is MoE: the attention block keeps its all-gather / reduce-scatter pair per pass, the
  // expert block loses its own (forward and backward, each micro-batch).
  const size_t layers = 8, micro = 2, passes = 2;
  CHECK(count_dim(plain, Dim::tp, CommOp::all_gather) == layers * micro * passes * 2);
  CHECK(count_dim(folded, Dim::tp, CommOp::all_gather) == layers * micro * passes);
  CHECK(count_dim(folded, Dim::tp, CommOp::reduce_scatter) == count_dim(plain, Dim::tp, CommOp::reduce_scatter) / 2);
  CHECK(count_dim(folded, Dim::ep, CommOp::all_to_all) == count_dim(plain, Dim::ep, CommOp::all_to_all));
  CHECK(!collectives(folded).empty());
}

TEST_CASE("folding: a rank holds E/ep whole experts, their state sharded over tp·cp·dp/ep", "[model][moe]") {
  Scenario s = moe_scenario(2, 8, 8, 0);
  s.parallel.zero = 1;
  const ParamCount c = count_parameters(s.model);
  const StageParams plain = stage_parameters(s, 0, 0, s.model.layers);
  s.parallel.expert_tp = 1;
  const StageParams folded = stage_parameters(s, 0, 0, s.model.layers);
  CHECK(plain.expert == Approx(c.expert_params_per_moe_layer * 8 / (2 * 8)));
  CHECK(folded.expert == Approx(2 * plain.expert));
  CHECK(folded.dense == Approx(plain.dense));
  // Expert DP: 16 ranks / (expert_tp 1 · ep 8) = 2 replicas (unfolded: dp 8 / ep 8 = 1).
  CHECK(s.parallel.expert_replicas() == 2);
  s.parallel.expert_tp = 0;
  CHECK(s.parallel.expert_replicas() == 1);
}
