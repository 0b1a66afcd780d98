// Activation memory of schedules that split backward (model/memory.hpp): after B a chunk keeps only
// M_W, what its W reads, until W. Qi et al. 2024 ("Zero Bubble Pipeline Parallelism", arXiv
// 2401.10241), Table 1: M_B = sb(34h + 5as), M_W = 32sbh per layer; Sec. 2.3: peak ZB-H1 p·M_B,
// ZB-H2 (2p − 1)·M_B.
#include <catch2/catch.hpp>

#include "sim/model/memory.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/sched/registry.hpp"
#include "tests/support/small_scenario.hpp"

using namespace plansim;

namespace {
std::vector<StageHolding> held(const Scenario& s) {
  auto sched = make_schedule(s.schedule.kind);
  return stage_holdings(sched->build({s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages}),
                        sched->splits_backward());
}
Bytes stage_activations(const Scenario& s, int stage) {
  return stage_memory(s, stage_memory_input(s, stage, held(s)[static_cast<size_t>(stage)])).activations;
}
}  // namespace

TEST_CASE("M_W of a plain GPT layer: the weight GEMMs' inputs and output gradients", "[model]") {
  // Hand derivation, 16-bit tensors of s·b·h elements = 2sbh bytes (Korthikanti's tensor list):
  //   inputs from the forward: QKV 2sbh + attention projection 2sbh + MLP up 2sbh + MLP down (4h wide) 8sbh = 14sbh
  //   output gradients from B: QKV (3h wide) 6sbh + projection 2sbh + MLP up (4h) 8sbh + MLP down 2sbh = 18sbh
  // 32sbh in all, Qi et al. Table 1's figure. s = 1024, b = 2, h = 1024: 32 · 2^21 = 67,108,864 B.
  Scenario sc = testing::small_scenario(1, 1, 1, 1);
  ModelSpec m = sc.model;
  m.dropout = true;  // a GPT layer as Korthikanti et al. count it, dropout masks included (M_B = 34sbh)
  ParallelSpec none;
  CHECK(weight_grad_bytes_per_layer(m, 2, none).value() == 67108864.0);
  // TP 4 without SP: the LN outputs (QKV and MLP-up inputs, 2 + 2) and the row-parallel outputs'
  // gradients (projection and MLP down, 2 + 2) are replicated: 8sbh + 24sbh/4 = 14sbh.
  ParallelSpec tp;
  tp.tp = 4;
  CHECK(weight_grad_bytes_per_layer(m, 2, tp).value() == 14.0 * 1024 * 2 * 1024);
  // With SP everything is sharded: 32sbh/4 = 8sbh. CP 2 halves the sequence: 4sbh.
  tp.sequence_parallel = true;
  CHECK(weight_grad_bytes_per_layer(m, 2, tp).value() == 8.0 * 1024 * 2 * 1024);
  tp.cp = 2;
  CHECK(weight_grad_bytes_per_layer(m, 2, tp).value() == 4.0 * 1024 * 2 * 1024);
  // M_W < M_B without recompute (32 vs 34 + 5as/h) and under selective recompute (32 vs 34); above
  // M_B under full recompute (32 vs 2), where B re-creates what W reads.
  for (Recompute r : {Recompute::none, Recompute::selective})
    CHECK(weight_grad_bytes_per_layer(m, 2, none) < activation_bytes_per_layer(m, 2, none, r, true));
  CHECK(weight_grad_bytes_per_layer(m, 2, none).value() ==
        16 * activation_bytes_per_layer(m, 2, none, Recompute::full, true).value());
}

TEST_CASE("ZB-H1 activations: stage 0 equals 1F1B's p·M_B, stage s (p − s)·M_B + s·M_W", "[model]") {
  // Uniform stages (8 layers over p = 4: 2 per stage), F = B = W (the schedules' unit orders).
  for (Recompute r : {Recompute::none, Recompute::selective})
    for (int m : {4, 8, 16}) {
      Scenario one = testing::small_scenario(1, 4, 1, m);
      one.training.recompute = r;
      one.schedule.kind = "1f1b";
      Scenario zb = one;
      zb.schedule.kind = "zb-h1";
      const double mb = 2 * activation_bytes_per_layer(one.model, 1, one.parallel, r, false).value();  // per chunk
      const double mw = 2 * weight_grad_bytes_per_layer(one.model, 1, one.parallel).value();
      INFO("recompute " << to_string(r) << " m=" << m);
      CHECK(stage_activations(zb, 0).value() == Approx(stage_activations(one, 0).value()));
      CHECK(stage_activations(zb, 0).value() == Approx(4 * mb));
      for (int s = 0; s < 4; ++s) {
        CHECK(stage_activations(zb, s).value() == Approx((4 - s) * mb + s * mw));
        // Not more than 1F1B's own stage s plus the W share of the s deferred W's, and never above
        // 1F1B's peak p·M_B.
        CHECK(stage_activations(zb, s).value() <= stage_activations(one, s).value() + s * mw + 1);
        CHECK(stage_activations(zb, s).value() <= 4 * mb + 1);
      }
    }
}

TEST_CASE("ZB-H2 activations: (2p − 1)·M_B on stage 0, below it elsewhere", "[model]") {
  Scenario zb = testing::small_scenario(1, 4, 1, 16);
  zb.training.recompute = Recompute::selective;
  zb.model.dropout = true;  // M_B = 34sbh > M_W = 32sbh, as in Qi et al.
  zb.schedule.kind = "zb-h2";
  const double mb = 2 * activation_bytes_per_layer(zb.model, 1, zb.parallel, Recompute::selective, false).value();
  const double mw = 2 * weight_grad_bytes_per_layer(zb.model, 1, zb.parallel).value();
  CHECK(stage_activations(zb, 0).value() == Approx(7 * mb));
  for (int s = 1; s < 4; ++s) {
    CHECK(stage_activations(zb, s).value() == Approx((7 - 2 * s) * mb + 2 * s * mw));
    CHECK(stage_activations(zb, s).value() < 7 * mb);
  }
}

TEST_CASE("full recompute: deferring W costs memory, the peak moves to the states holding W shares", "[model]") {
  // M_B = 2sbh (the layer input), M_W = 32sbh. ZB-H1's last stage passes through (1, p − 1) and
  // (0, p): p chunks awaiting W is its peak, p · 32sbh, where 1F1B's last stage holds 1 · 2sbh.
  Scenario zb = testing::small_scenario(1, 4, 1, 16);
  zb.training.recompute = Recompute::full;
  zb.schedule.kind = "zb-h1";
  const double mw = 2 * weight_grad_bytes_per_layer(zb.model, 1, zb.parallel).value();
  CHECK(stage_activations(zb, 3).value() == Approx(4 * mw));
  CHECK(activation_peak_state(zb, held(zb)[3]) == HeldChunks{0, 4});
}

TEST_CASE("activations count each held chunk's own layers where a stage's chunks differ", "[model]") {
  // 6 layers on 2 stages x 2 virtual stages: pieces of 1, 2, 2 and 1 layers. Interleaved with m = p = 2
  // runs all four forwards of stage 0 before its first backward, so at the peak it holds 2 micro-batches
  // of each of its pieces (0 and 2): 2·(layers(0) + layers(2))·M_B, not 4·max·M_B.
  Scenario s = testing::small_scenario(1, 2, 1, 2);
  s.model.layers = 6;
  s.schedule = {"interleaved", 2};
  const LayerPartition part(6, 4);
  REQUIRE(part.count(0) != part.count(2));
  const CompiledPlan plan = compile_plan(s);
  const double mb = activation_bytes_per_layer(s.model, 1, s.parallel, s.training.recompute, false).value();
  const MemoryBreakdown m0 = stage_memory(s, stage_memory_input(s, 0, plan.held[0]));
  CHECK(m0.activations.value() == Approx(2.0 * (part.count(0) + part.count(2)) * mb));
  // Stage 1 starts its backwards after two forwards (pieces 1 and 3: 2 + 1 layers), then alternates:
  // its peak holds two micro-batches of piece 1 and one of piece 3, 5 layers, not 3 chunks x 2.
  const MemoryBreakdown m1 = stage_memory(s, stage_memory_input(s, 1, plan.held[1]));
  CHECK(m1.activations.value() == Approx(5.0 * mb));
  // Without layer counts (unit holdings) each held chunk counts as the stage's largest.
  const int largest0 = std::max(part.count(0), part.count(2));
  CHECK(stage_activations(s, 0).value() == Approx(4.0 * largest0 * mb));
}
