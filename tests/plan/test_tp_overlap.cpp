#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "tests/support/small_scenario.hpp"

#include "sim/plan/executor.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/plan_costs.hpp"
#include "sim/plan/tp_overlap.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/fixed_comm.hpp"

using namespace plansim;

namespace {

Scenario overlapped() {
  Scenario s = testing::small_scenario(2, 1, 1, 1);
  s.parallel.sequence_parallel = true;
  s.training.overlap.tp_comm = true;
  return s;
}

ComputeParams exact() {
  ComputeParams p = ComputeParams::defaults(testing::test_a100(), DType::bf16);
  p.launch_overhead = Time::zero();
  p.comm_slowdown = 0;
  return p;
}

double iteration(const Scenario& s, Time per_collective) {
  CompiledPlan plan = compile_plan(s);
  Simulation sim;
  testing::FixedComm comm(sim, [&](const CommRequest&) { return per_collective; });
  return execute(plan, ComputeModel(exact()), comm, sim).iteration.seconds();
}

bool is_tp(const ProgramOp& o) { return o.kind == OpKind::collective && o.stream == StreamKind::tp_comm; }
bool is_tp(const ProgramOp& o, CommOp c) { return is_tp(o) && o.comm == c; }
bool depends(const Program& p, size_t op, size_t on) {
  const ProgramOp& o = p.ops[op];
  return std::find(p.deps.begin() + o.dep_begin, p.deps.begin() + o.dep_begin + o.dep_count, on) !=
         p.deps.begin() + o.dep_begin + o.dep_count;
}
// The compute op a TP collective of an overlapped plan pairs with: the all-gather's is the next
// compute op, the reduce-scatter's the compute op emitted just before it.
size_t paired_gemm(const Program& p, size_t c) {
  if (p.ops[c].comm == CommOp::all_gather) {
    size_t i = c + 1;
    while (p.ops[i].kind != OpKind::compute) ++i;
    return i;
  }
  size_t i = c - 1;
  while (p.ops[i].kind != OpKind::compute) --i;
  return i;
}
// The single kernel of a cut block's paired op.
const OpCost& kernel(const CompiledPlan& plan, size_t op) {
  const auto& k = plan.costs[plan.programs[0].ops[op].cost].kernels;
  REQUIRE(k.size() == 1);
  return k[0];
}

}  // namespace

TEST_CASE("TP overlap pairs: forward first / last pipelined GEMM, backward TE's userbuffers choice", "[plan]") {
  ModelSpec m = testing::small_scenario(2, 1, 1, 1).model;
  Shard sh{2, 1, 1, true};
  sh.tp_overlap_chunks = 2;
  const LayerForward f = layer_forward(m, 0, 1, sh);
  auto name = [](const std::vector<OpCost>& k, int i) { return i < 0 ? std::string("-") : k[static_cast<size_t>(i)].name; };
  TpPairs p = tp_pairs(f.attention, false);
  CHECK(name(f.attention, p.before) == "qkv");
  CHECK(name(f.attention, p.after) == "attention_out");
  p = tp_pairs(f.mlp, false);
  CHECK(name(f.mlp, p.before) == "mlp_up");
  CHECK(name(f.mlp, p.after) == "mlp_down");
  // Backward: the output gradient's all-gather beside attention_out's data gradient (ring exchange);
  // the input gradient's reduce-scatter beside qkv's weight gradient (bulk), or its data gradient
  // where the pass has none (zero-bubble B).
  const auto both = backward_of(f.attention, BackwardPart::both), input = backward_of(f.attention, BackwardPart::input);
  p = tp_pairs(both, true);
  CHECK(name(both, p.before) == "attention_out_dgrad");
  CHECK(name(both, p.after) == "qkv_wgrad");
  p = tp_pairs(input, true);
  CHECK(name(input, p.before) == "attention_out_dgrad");
  CHECK(name(input, p.after) == "qkv_dgrad");
  // Whole GEMMs (overlap off) or a block without pipelined GEMMs: not cut.
  CHECK_FALSE(tp_pairs(layer_forward(m, 0, 1, Shard{2, 1, 1, true}).attention, false).split());
  CHECK_FALSE(tp_pairs(backward_of(f.attention, BackwardPart::weight), true).split());
}

TEST_CASE("TP overlap: a cut block holds exactly the whole block's kernels", "[plan]") {
  const Scenario s = overlapped();
  std::vector<ComputeCost> out;
  CostTable t(s, out);
  auto names = [&](std::initializer_list<uint32_t> ids) {
    std::vector<std::string> n;
    for (uint32_t id : ids)
      if (id != TpSplit::kNoEntry)
        for (const OpCost& k : out[id].kernels) n.push_back(k.name);
    std::sort(n.begin(), n.end());
    return n;
  };
  for (int block : {0, 1})
    for (BackwardPart part : {BackwardPart::both, BackwardPart::input}) {
      const TpSplit f = t.forward_split(block, false), b = t.backward_split(block, false, part);
      REQUIRE(f.split());
      REQUIRE(b.split());
      CHECK(names({f.before, f.rest, f.after}) == names({t.forward(block, false)}));
      CHECK(names({b.before, b.rest, b.after}) == names({t.backward(block, false, part)}));
    }
  Scenario off = s;
  off.training.overlap.tp_comm = false;
  std::vector<ComputeCost> out_off;
  CostTable t_off(off, out_off);
  CHECK_FALSE(t_off.forward_split(0, false).split());
  CHECK_FALSE(t_off.backward_split(1, false, BackwardPart::both).split());
}

TEST_CASE("TP overlap: each collective starts with its paired GEMM and the next kernel waits for both", "[plan]") {
  const CompiledPlan plan = compile_plan(overlapped());
  const Program& p = plan.programs[0];
  int gathers = 0, scatters = 0;
  for (size_t c = 0; c < p.ops.size(); ++c) {
    if (!is_tp(p.ops[c])) continue;
    const size_t g = paired_gemm(p, c);
    const OpCost& k = kernel(plan, g);
    INFO(k.name);
    CHECK(k.cls == OpClass::gemm);
    CHECK_FALSE(depends(p, c, g));
    // The next compute op waits for the GEMM and the collective.
    size_t next = std::max(g, c) + 1;
    while (next < p.ops.size() && p.ops[next].kind != OpKind::compute && p.ops[next].kind != OpKind::send) ++next;
    REQUIRE(next < p.ops.size());
    CHECK(depends(p, next, c));
    CHECK(depends(p, next, g));
    if (p.ops[c].comm == CommOp::all_gather) {
      ++gathers;
      CHECK((k.name == "qkv" || k.name == "mlp_up" || k.name == "attention_out_dgrad" || k.name == "mlp_down_dgrad"));
    } else {
      REQUIRE(is_tp(p.ops[c], CommOp::reduce_scatter));
      ++scatters;
      CHECK((k.name == "attention_out" || k.name == "mlp_down" || k.name == "qkv_wgrad" || k.name == "mlp_up_wgrad"));
      // Both start when the block's rest ends.
      REQUIRE(p.ops[c].dep_count == 1);
      CHECK(depends(p, g, p.deps[p.ops[c].dep_begin]));
    }
  }
  CHECK(gathers == 8 * 2 * 2);  // 8 layers × (attention, MLP) × (forward, backward)
  CHECK(scatters == 8 * 2 * 2);
}

TEST_CASE("TP overlap: a collective longer than its paired GEMM exposes the difference, not less", "[plan][exec]") {
  // One micro-batch, one rank pair, no other communication: the blocks run back to back, each as
  // max(G_before, C) + rest + max(G_after, C) with both collectives taking C. So raising the collectives
  // from free to C adds exactly Σ over collectives max(0, C − G_paired). C is chosen above the
  // shortest paired GEMMs but with 2C below every block's compute: hiding behind the whole block
  // (the model before the cut) would have exposed nothing.
  const Scenario s = overlapped();
  const CompiledPlan plan = compile_plan(s);
  const ComputeModel cm(exact());
  const Program& p = plan.programs[0];
  std::vector<double> paired;
  for (size_t c = 0; c < p.ops.size(); ++c)
    if (is_tp(p.ops[c])) paired.push_back(cm.ops_time(plan.costs[p.ops[paired_gemm(p, c)].cost].kernels).seconds());
  REQUIRE(paired.size() == 64);
  // Each block's compute: the ops between consecutive collective pairs, i.e. its three ops.
  double block_min = 1e9, block = 0;
  int in_block = 0;
  for (const ProgramOp& o : p.ops) {
    if (o.kind != OpKind::compute || plan.costs[o.cost].name.find(':') == std::string::npos) continue;
    block += cm.ops_time(plan.costs[o.cost].kernels).seconds();
    if (++in_block == 3) block_min = std::min(block_min, block), block = 0, in_block = 0;
  }
  const double g_min = *std::min_element(paired.begin(), paired.end());
  const double c = 1.5 * g_min;
  REQUIRE(2 * c < block_min);
  double exposed = 0;
  for (double g : paired) exposed += std::max(0.0, c - g);
  REQUIRE(exposed > 0);
  const double t0 = iteration(s, Time::zero()), tc = iteration(s, Time::from_seconds(c));
  CHECK(tc - t0 == Approx(exposed).epsilon(1e-6));
}

TEST_CASE("TP overlap off: each block is one op holding all its kernels, its collectives around it", "[plan]") {
  for (bool sp : {true, false})
    for (Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
      Scenario s = overlapped();
      s.training.overlap.tp_comm = false;
      s.parallel.sequence_parallel = sp;
      s.training.recompute = rc;
      const CompiledPlan plan = compile_plan(s);
      for (const ComputeCost& c : plan.costs) CHECK(c.name.find(':') == std::string::npos);
      const Program& p = plan.programs[0];
      int blocks = 0;
      for (size_t c = 0; c < p.ops.size(); ++c) {
        if (!is_tp(p.ops[c])) continue;
        if (p.ops[c].comm == CommOp::all_gather) {  // the next compute op waits for it
          size_t next = c + 1;
          while (p.ops[next].kind != OpKind::compute) ++next;
          CHECK(depends(p, next, c));
          continue;
        }
        // The reduction waits for the whole block before it: one op with both its paired GEMMs.
        REQUIRE(p.ops[c].dep_count == 1);
        const uint32_t b = p.deps[p.ops[c].dep_begin];
        CHECK(b == c - 1);
        const auto& k = plan.costs[p.ops[b].cost].kernels;
        const bool attention_fwd = std::any_of(k.begin(), k.end(), [](const OpCost& o) { return o.name == "qkv"; });
        const bool mlp_fwd = std::any_of(k.begin(), k.end(), [](const OpCost& o) { return o.name == "mlp_down"; });
        const bool bwd = std::any_of(k.begin(), k.end(), [](const OpCost& o) { return o.name.find("_dgrad") != std::string::npos; });
        CHECK((attention_fwd || mlp_fwd || bwd));
        ++blocks;
      }
      const int passes = rc == Recompute::full ? 3 : 2;
      CHECK(blocks == 8 * 2 * passes);
    }
}

TEST_CASE("TP overlap: comm_slowdown slows only the paired GEMM, only while its collective runs", "[plan][exec]") {
  // Collectives of C shorter than every paired GEMM: the GEMM progresses at 1/(1+s) for C, then at full
  // rate, so each collective adds C − C/(1+s) = C·s/(1+s), and nothing else in the block is slowed.
  const Scenario s = overlapped();
  const CompiledPlan plan = compile_plan(s);
  ComputeParams slowed = exact();
  slowed.comm_slowdown = 0.25;
  const ComputeModel cm(slowed);
  const Program& p = plan.programs[0];
  double g_min = 1e9;
  int collectives = 0;
  for (size_t c = 0; c < p.ops.size(); ++c)
    if (is_tp(p.ops[c])) {
      ++collectives;
      g_min = std::min(g_min, cm.ops_time(plan.costs[p.ops[paired_gemm(p, c)].cost].kernels).seconds());
    }
  const double c = 0.5 * g_min;
  auto run = [&](Time per_collective) {
    Simulation sim;
    testing::FixedComm comm(sim, [&](const CommRequest&) { return per_collective; });
    return execute(plan, cm, comm, sim).iteration.seconds();
  };
  const double added = run(Time::from_seconds(c)) - run(Time::zero());
  CHECK(added == Approx(collectives * c * 0.25 / 1.25).epsilon(1e-6));
}

TEST_CASE("TP overlap: an MoE block has no pipelined GEMM, so its TP collectives are not overlapped", "[plan]") {
  Scenario s = overlapped();
  s.model.moe = MoeSpec{8, 2, 1024, 2};  // layers 1, 3, 5, 7
  const CompiledPlan plan = compile_plan(s);
  const Program& p = plan.programs[0];
  int moe_blocks = 0, dense_cut = 0;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops[i].kind != OpKind::compute) continue;
    const std::string& n = plan.costs[p.ops[i].cost].name;
    if (n.rfind("mlp_fwd:", 0) == 0) ++dense_cut;
    if (n != "moe_mlp_fwd" && n != "moe_mlp_bwd") continue;
    ++moe_blocks;
    // The all-gather before it is a plain dependency; the reduce-scatter after it waits for it.
    size_t ag = i - 1, rs = i + 1;
    while (!is_tp(p.ops[ag], CommOp::all_gather)) --ag;
    while (!is_tp(p.ops[rs])) ++rs;
    CHECK(depends(p, i, ag));
    CHECK(depends(p, rs, i));
  }
  CHECK(moe_blocks == 4 * 2);  // forward and backward of the 4 MoE layers
  CHECK(dense_cut == 4 * 3);   // the dense MLP blocks' forward: [mlp_up] [rest] [mlp_down]
}
