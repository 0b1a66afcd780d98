#include <catch2/catch.hpp>

#include <tuple>

#include "sim/model/memory.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/rank_mapping.hpp"
#include "sim/report/report.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/fixed_comm.hpp"
#include "tests/support/small_scenario.hpp"

using namespace plansim;

// DualPipe compiled into programs: the mirrored chunks, their gradient group, memory and execution.

namespace {
Scenario dual(int tp, int pp, int dp, int m) {
  Scenario s = testing::small_scenario(tp, pp, dp, m);
  s.schedule.kind = "dualpipe";
  return s;
}

ComputeParams exact_params() {
  ComputeParams p = ComputeParams::defaults(testing::test_a100(), DType::bf16);
  p.launch_overhead = Time::zero();
  p.comm_slowdown = 0;
  return p;
}

Report simulate(const Scenario& s, const std::function<Time(const CommRequest&)>& cost) {
  CompiledPlan plan = compile_plan(s);
  Simulation sim;
  testing::FixedComm comm(sim, cost);
  ExecutionResult r = execute(plan, ComputeModel(exact_params()), comm, sim);
  return build_report(s, plan, r, testing::test_a100());
}

// (group, seq, op, bytes) of a rank's DP collectives, in program order.
std::vector<std::tuple<uint32_t, uint32_t, CommOp, double>> dp_collectives(const CompiledPlan& p, int rank) {
  std::vector<std::tuple<uint32_t, uint32_t, CommOp, double>> out;
  for (const auto& o : p.programs[static_cast<size_t>(rank)].ops)
    if (o.kind == OpKind::collective && o.stream == StreamKind::dp_comm) out.emplace_back(o.group, o.seq, o.comm, o.bytes);
  return out;
}
}  // namespace

TEST_CASE("dualpipe plan: each rank reduces both chunks' gradients once, over the mirror pair's 2·dp ranks", "[plan][dualpipe]") {
  for (int zero : {0, 1, 2}) {
    Scenario s = dual(1, 4, 2, 8);  // 8 layers: 2 per piece
    s.parallel.zero = zero;
    CompiledPlan p = compile_plan(s);
    RankMapping map(s.parallel);
    for (int r = 0; r < 8; ++r) {
      const int st = p.programs[static_cast<size_t>(r)].stage, mirror_stage = 3 - st;
      // Pieces st and 3 − st, each a stage's layers (the old per-stage accounting: stage 0 has the
      // embedding, stage 3 the output layer; DualPipe's stages 0 and 3 hold both).
      const double params = stage_parameters(s, st, 2 * st, 2).dense + stage_parameters(s, mirror_stage, 2 * mirror_stage, 2).dense;
      const CommOp op = zero == 0 ? CommOp::all_reduce : CommOp::reduce_scatter;
      double reduced = 0, gathered = 0;
      for (const auto& [g, seq, c, bytes] : dp_collectives(p, r)) {
        const Group& group = p.groups[g];
        REQUIRE(group.ranks.size() == 4);  // dp 2 on this stage + dp 2 on the mirror stage
        for (uint32_t m : group.ranks) CHECK((map.coords(static_cast<int>(m))[Dim::pp] == st ||
                                             map.coords(static_cast<int>(m))[Dim::pp] == mirror_stage));
        if (c == op) reduced += bytes;
        if (c == CommOp::all_gather) gathered += bytes;
      }
      INFO("zero " << zero << " rank " << r);
      CHECK(reduced == Approx(params * 2));
      CHECK(gathered == Approx(zero == 0 ? 0 : params * 2));
      // The mirror issues the very same collective sequence (a collective needs every member).
      RankCoords c = map.coords(r);
      c[Dim::pp] = mirror_stage;
      CHECK(dp_collectives(p, r) == dp_collectives(p, map.rank(c)));
    }
  }
}

TEST_CASE("dualpipe plan: activations travel both ways, 2·m transfers per inner stage", "[plan][dualpipe]") {
  const int m = 8;
  CompiledPlan p = compile_plan(dual(1, 4, 1, m));
  for (uint32_t r = 0; r < 4; ++r) {
    int to_next = 0, to_prev = 0;
    for (const auto& o : p.programs[r].ops)
      if (o.kind == OpKind::send) (o.peer == r + 1 ? to_next : to_prev) += 1;
    // Lane 0 (m/2 micro-batches) runs forward 0 -> 3, lane 1 runs 3 -> 0; gradients go back.
    const int inner_next = r < 3 ? m / 2 : 0, inner_prev = r > 0 ? m / 2 : 0;
    INFO("rank " << r);
    CHECK(to_next == inner_next /* lane 0 forward */ + inner_next /* lane 1 gradients */);
    CHECK(to_prev == inner_prev + inner_prev);
  }
}

TEST_CASE("dualpipe memory: parameters of two chunks (2x), PP+1 chunk activations", "[plan][dualpipe]") {
  for (int zero : {0, 1, 2}) {
    Scenario one = testing::small_scenario(1, 4, 2, 8);
    one.parallel.zero = zero;
    Scenario two = one;
    two.schedule.kind = "dualpipe";
    const CompiledPlan p = compile_plan(two);
    for (int st = 0; st < 4; ++st) {
      // Stage st of DualPipe holds what 1F1B's stages st and 3 − st hold; ZeRO shards the model states
      // over the 2·dp ranks holding them, so sharded states stay at 1F1B's per-rank size.
      const MemoryBreakdown a = stage_memory(one, stage_memory_input(one, st, StageHolding::full(1)));
      const MemoryBreakdown b = stage_memory(one, stage_memory_input(one, 3 - st, StageHolding::full(1)));
      const MemoryBreakdown d = stage_memory(two, stage_memory_input(two, st, p.held[static_cast<size_t>(st)]));
      INFO("zero " << zero << " stage " << st);
      CHECK(d.weights.value() == Approx((a.weights + b.weights).value()));
      CHECK(d.gradients.value() == Approx((a.gradients + b.gradients).value() / (zero >= 2 ? 2 : 1)));
      CHECK(d.optimizer.value() == Approx((a.optimizer + b.optimizer).value() / (zero >= 1 ? 2 : 1)));
      CHECK(p.held[static_cast<size_t>(st)].peak_chunks() == 5);
      CHECK(d.activations.value() ==
            Approx(5 * 2 * activation_bytes_per_layer(two.model, 1, two.parallel, two.training.recompute, false).value()));
    }
    // Uniform middle stage (no embedding/output): exactly twice the parameters.
    CHECK(stage_memory(two, stage_memory_input(two, 1, StageHolding::full(5))).weights.value() ==
          Approx(2 * stage_memory(one, stage_memory_input(one, 1, StageHolding::full(4))).weights.value()));
  }
}

TEST_CASE("dualpipe programs run without deadlock for p in {2,4,8,16} and several m", "[plan][dualpipe]") {
  for (int p : {2, 4, 8, 16})
    for (int m : {2 * p, 2 * p + 2, 4 * p}) {
      Scenario s = dual(1, p, 1, m);
      s.model.layers = 32;
      s.parallel.zero = 1;
      if (p == 2) s.parallel.dp = 2, s.training.global_batch = 2 * m;
      INFO("p=" << p << " m=" << m);
      Report r;
      REQUIRE_NOTHROW(r = simulate(s, [](const CommRequest& q) { return Time::us(5) + transfer_time(q.bytes, GBps(50)); }));
      CHECK(r.iteration > Time::zero());
    }
}

TEST_CASE("dualpipe executes with a smaller bubble than 1F1B and ZB-H1 (free communication, uniform stages)", "[plan][dualpipe]") {
  // Uniform stages need the embedding and logits to be negligible next to the layers (see the
  // 1F1B executor test): a tiny vocabulary and a wide model.
  Scenario s = dual(1, 4, 1, 8);
  testing::make_layers_dominate(s);
  auto free = [](const CommRequest&) { return Time::zero(); };
  const Report d = simulate(s, free);
  s.schedule.kind = "1f1b";
  const Report one = simulate(s, free);
  s.schedule.kind = "zb-h1";
  const Report zb = simulate(s, free);
  CHECK(one.bubble_overhead == Approx(3.0 / 8).epsilon(0.02));  // (p−1)/m
  CHECK(d.bubble_overhead < zb.bubble_overhead);
  // The pipeline part ends earlier; the optimizer step after it updates both chunks (ZeRO-0: twice
  // 1F1B's parameters), so the whole iteration only beats 1F1B here, not ZB-H1.
  CHECK(d.stages[0].flush_window < zb.stages[0].flush_window);
  CHECK(d.iteration < one.iteration);
  // Same work: m chunk forwards and backwards per rank. A backward GEMM is a data-gradient and a
  // weight-gradient product whether or not B and W are split, so the split costs nothing extra.
  for (size_t i = 0; i < 4; ++i) {
    CHECK(d.stages[i].compute_busy.seconds() == Approx(one.stages[i].compute_busy.seconds()).epsilon(0.01));
  }
}

TEST_CASE("dualpipe: overlapped F&B pairs hide TP communication under the partner's compute", "[plan][dualpipe]") {
  // TP 2 with a slow TP link: every TP all-reduce is exposed under ZB-H1 (nothing else to run);
  // in DualPipe's paired steady state the other pass computes meanwhile.
  Scenario s = dual(2, 4, 1, 16);
  auto cost = [](const CommRequest& q) {
    return q.dim == Dim::tp ? Time::us(20) + transfer_time(q.bytes, GBps(20)) : transfer_time(q.bytes, GBps(100));
  };
  const Report d = simulate(s, cost);
  s.schedule.kind = "zb-h1";
  const Report zb = simulate(s, cost);
  const double tp_d = d.exposed_comm_s[static_cast<size_t>(Dim::tp)], tp_zb = zb.exposed_comm_s[static_cast<size_t>(Dim::tp)];
  INFO("exposed TP: dualpipe " << tp_d << " s, zb-h1 " << tp_zb << " s");
  CHECK(tp_d < 0.75 * tp_zb);
  CHECK(d.overlap_fraction > zb.overlap_fraction);
}
