#include <catch2/catch.hpp>

#include "tests/support/small_scenario.hpp"

#include "sim/model/memory.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/plan/plan_compiler.hpp"

using namespace plansim;

namespace {
Scenario base(int tp, int pp, int dp, int m) { return testing::small_scenario(tp, pp, dp, m); }

struct Counts {
  int ops = 0;
  double bytes = 0;
};
Counts count(const CompiledPlan& plan, uint32_t rank, OpKind kind, StreamKind stream, CommOp op) {
  Counts c;
  for (const auto& o : plan.programs[rank].ops)
    if (o.kind == kind && o.stream == stream && (kind != OpKind::collective || o.comm == op)) {
      ++c.ops;
      c.bytes += o.bytes;
    }
  return c;
}
}  // namespace

TEST_CASE("compiler: TP all-reduces per layer, or SP all-gather + reduce-scatter", "[plan]") {
  // Two collectives per layer per direction: 8 layers · 2 micro-batches · (2 forward + 2 backward).
  Scenario s = base(2, 1, 1, 2);
  CompiledPlan p = compile_plan(s);
  const double act = 1024.0 * 1024 * 2;  // tokens · hidden · 2 bytes
  Counts ar = count(p, 0, OpKind::collective, StreamKind::tp_comm, CommOp::all_reduce);
  CHECK(ar.ops == 8 * 2 * 4);
  CHECK(ar.bytes == Approx(64 * act));
  s.parallel.sequence_parallel = true;
  p = compile_plan(s);
  CHECK(count(p, 0, OpKind::collective, StreamKind::tp_comm, CommOp::all_gather).ops == 8 * 2 * 4);
  CHECK(count(p, 0, OpKind::collective, StreamKind::tp_comm, CommOp::reduce_scatter).ops == 8 * 2 * 4);
  CHECK(count(p, 0, OpKind::collective, StreamKind::tp_comm, CommOp::all_reduce).ops == 0);
}

TEST_CASE("compiler: selective_op re-runs each layer's TP all-gathers and wk, w3 before its backward", "[plan]") {
  // torchtitan's per-op AC does not save the all-gathered block inputs: under SP each layer's backward
  // gathers twice more (8 layers · 2 micro-batches · 2), and the re-run GEMMs are wk and w3 only.
  Scenario s = base(2, 1, 1, 2);
  s.model.gated_mlp = true;
  s.model.kv_heads = 4;  // kv = 4 · 64 = 256
  s.parallel.sequence_parallel = true;
  s.training.recompute = Recompute::selective;
  const int megatron = count(compile_plan(s), 0, OpKind::collective, StreamKind::tp_comm, CommOp::all_gather).ops;
  s.training.recompute = Recompute::selective_op;
  const CompiledPlan p = compile_plan(s);
  CHECK(count(p, 0, OpKind::collective, StreamKind::tp_comm, CommOp::all_gather).ops == megatron + 8 * 2 * 2);
  CHECK(count(p, 0, OpKind::collective, StreamKind::tp_comm, CommOp::reduce_scatter).ops == 8 * 2 * 4);
  double recompute = 0;
  for (const auto& op : p.programs[0].ops)
    if (op.kind == OpKind::compute && op.recompute) recompute += p.costs[op.cost].flops;
  const double t = 1024, h = 1024, kv = 256, f = 4096;
  CHECK(recompute == Approx(8 * 2 * (2 * t * h * kv / 2 + 2 * t * h * f / 2)));
}

TEST_CASE("compiler: DP reduces every local gradient byte exactly once, after the last micro-batch", "[plan]") {
  for (int zero : {0, 1, 2, 3}) {
    Scenario s = base(1, 2, 2, 4);
    s.parallel.zero = zero;
    CompiledPlan p = compile_plan(s);
    for (uint32_t r = 0; r < 4; ++r) {
      const int stage = p.programs[r].stage;
      StageParams sp = stage_parameters(s, stage, stage * 4, 4);
      const CommOp op = zero == 0 ? CommOp::all_reduce : CommOp::reduce_scatter;
      Counts grads = count(p, r, OpKind::collective, StreamKind::dp_comm, op);
      INFO("zero " << zero << " rank " << r);
      CHECK(grads.bytes == Approx(sp.dense * 2));
      // No gradient reduction before the last micro-batch's backward (gradient accumulation).
      for (const auto& o : p.programs[r].ops)
        if (o.kind == OpKind::collective && o.comm == op && o.stream == StreamKind::dp_comm) {
          const uint32_t producer = p.programs[r].deps[o.dep_begin];
          CHECK(p.programs[r].ops[producer].micro_batch == 3);
        }
      // ZeRO-1/2 all-gather the parameters once; ZeRO-3 gathers each layer before its forward and
      // its backward for every micro-batch (4 layers · 4 micro-batches · 2).
      Counts gathers = count(p, r, OpKind::collective, StreamKind::dp_comm, CommOp::all_gather);
      if (zero == 0) CHECK(gathers.ops == 0);
      if (zero == 1 || zero == 2) CHECK(gathers.bytes == Approx(sp.dense * 2));
      if (zero == 3) CHECK(gathers.ops == 4 * 4 * 2);
    }
  }
}

TEST_CASE("compiler: CP ranks reduce and shard their gradients with DP (they hold the same weights)", "[plan]") {
  // tp 1, pp 1, cp 2 over dp 1 and dp 2: the gradient group is every rank holding the same weights, cp · dp of
  // them, and ZeRO-3 gathers over it; with cp 2, dp 1 there is still a reduction (the two halves of each
  // sequence give two partial gradients).
  for (int dp : {1, 2}) {
    Scenario s = base(1, 1, dp, 2);
    s.parallel.cp = 2;
    s.parallel.zero = 3;
    const CompiledPlan p = compile_plan(s);
    REQUIRE(p.programs.size() == static_cast<size_t>(2 * dp));
    const StageParams sp = stage_parameters(s, 0, 0, s.model.layers);
    for (uint32_t r = 0; r < p.programs.size(); ++r) {
      INFO("dp " << dp << " rank " << r);
      const Counts grads = count(p, r, OpKind::collective, StreamKind::dp_comm, CommOp::reduce_scatter);
      CHECK(grads.bytes == Approx(sp.dense * 2));
      for (const auto& o : p.programs[r].ops)
        if (o.kind == OpKind::collective && o.stream == StreamKind::dp_comm)
          CHECK(p.groups[o.group].ranks.size() == static_cast<size_t>(2 * dp));
      CHECK(count(p, r, OpKind::collective, StreamKind::dp_comm, CommOp::all_gather).ops > 0);
    }
  }
}

TEST_CASE("memory: ZeRO shards model states over DP and CP", "[plan][memory]") {
  Scenario s = base(1, 1, 2, 2);
  s.parallel.zero = 3;
  const StageMemoryInput in = stage_memory_input(s, 0, {});
  const MemoryBreakdown dp2 = stage_memory(s, in);
  s.parallel.cp = 2;  // four ranks hold the same weights now
  const MemoryBreakdown dp2cp2 = stage_memory(s, stage_memory_input(s, 0, {}));
  CHECK(dp2cp2.weights.value() == Approx(dp2.weights.value() / 2));
  CHECK(dp2cp2.optimizer.value() == Approx(dp2.optimizer.value() / 2));
  CHECK(dp2cp2.gradients.value() == Approx(dp2.gradients.value() / 2));
}

TEST_CASE("compiler: PP sends one activation per micro-batch forward and one gradient backward", "[plan]") {
  Scenario s = base(1, 4, 1, 8);
  CompiledPlan p = compile_plan(s);
  for (uint32_t r = 0; r < 4; ++r) {
    const int sends = count(p, r, OpKind::send, StreamKind::pp_comm, CommOp::send_recv).ops;
    const int recvs = count(p, r, OpKind::recv, StreamKind::pp_comm, CommOp::send_recv).ops;
    const int expected = (r < 3 ? 8 : 0) + (r > 0 ? 8 : 0);
    CHECK(sends == expected);
    CHECK(recvs == expected);
  }
  // Interleaved with v = 2 on 4 stages: 2·4 − 1 = 7 virtual-stage boundaries (all between different
  // ranks), each crossed by 8 micro-batches forward and 8 gradients backward.
  s.schedule = {"interleaved", 2};
  p = compile_plan(s);
  int total = 0;
  for (uint32_t r = 0; r < 4; ++r) total += count(p, r, OpKind::send, StreamKind::pp_comm, CommOp::send_recv).ops;
  CHECK(total == 7 * 8 * 2);
}

TEST_CASE("compiler: TP folding keeps only TP rank 0 and the same op lists", "[plan]") {
  Scenario s = base(4, 2, 2, 4);
  CompiledPlan full = compile_plan(s);
  CompiledPlan folded = compile_plan(s, CompileOptions{true});
  CHECK(full.programs.size() == 16);
  CHECK(folded.programs.size() == 4);
  CHECK(folded.fold == 4);
  CHECK(folded.fold_stride == 1);
  for (const auto& p : folded.programs) {
    const auto& q = full.programs[p.rank];
    REQUIRE(p.ops.size() == q.ops.size());
    for (size_t i = 0; i < p.ops.size(); ++i) CHECK(p.ops[i].kind == q.ops[i].kind);
  }
}

TEST_CASE("compiler: uneven layer partitions, explicit or balanced, give each stage its own layers", "[plan]") {
  // 8 layers on 2 stages as [3, 5]: each stage reduces exactly its own layers' gradients, and its
  // memory model sees the same partition.
  Scenario s = base(1, 2, 2, 4);
  s.parallel.stage_layers = {3, 5};
  CompiledPlan p = compile_plan(s);
  for (uint32_t r = 0; r < 4; ++r) {
    const int stage = p.programs[r].stage;
    StageParams sp = stage == 0 ? stage_parameters(s, 0, 0, 3) : stage_parameters(s, 1, 3, 5);
    CHECK(count(p, r, OpKind::collective, StreamKind::dp_comm, CommOp::all_reduce).bytes == Approx(sp.dense * 2));
  }
  // The memory model sees the same partition.
  CHECK(stage_memory_input(s, 0, StageHolding::full(1)).layers_on_stage == 3);
  CHECK(stage_memory_input(s, 1, StageHolding::full(1)).layers_on_stage == 5);
  CHECK(stage_memory_input(s, 1, StageHolding::full(1)).first_layer == 3);
}

TEST_CASE("layer partition: balanced remainder goes to the middle stages", "[plan]") {
  LayerPartition even(8, 4);
  CHECK(even.uniform());
  CHECK(even.first(3) == 6);
  // 70 layers on 12 stages (BLOOM's PP12): 5 each, the 10 extra layers to the 10 middle stages.
  LayerPartition bloom(70, 12);
  CHECK_FALSE(bloom.uniform());
  CHECK(bloom.count(0) == 5);
  CHECK(bloom.count(11) == 5);
  for (int v = 1; v <= 10; ++v) CHECK(bloom.count(v) == 6);
  CHECK(bloom.first(11) == 65);
  // 10 layers on 4 stages: two extra, to stages 1 and 2.
  LayerPartition ten(10, 4);
  CHECK(std::vector<int>{ten.count(0), ten.count(1), ten.count(2), ten.count(3)} == std::vector<int>{2, 3, 3, 2});
  LayerPartition expl(8, 2, {3, 5});
  CHECK(expl.first(1) == 3);
  CHECK(expl.count(1) == 5);
}

TEST_CASE("layer partition: Megatron's embedding and loss slots (account_for_*_in_pipeline_split)", "[plan]") {
  // Llama 3 405B: 126 layers + 2 slots over PP 16 × v 8 = 128 virtual stages: one layer each, so the
  // first piece holds only the embedding and the last only the loss.
  LayerPartition l405(126, 128, {}, true, true);
  CHECK(l405.count(0) == 0);
  CHECK(l405.count(127) == 0);
  for (int v = 1; v < 127; ++v) CHECK(l405.count(v) == 1);
  CHECK(l405.first(1) == 0);
  CHECK(l405.first(127) == 126);
  // 30 layers + 2 over 4 stages: 8 slots each, the ends build 7.
  LayerPartition p4(30, 4, {}, true, true);
  CHECK(std::vector<int>{p4.count(0), p4.count(1), p4.count(2), p4.count(3)} == std::vector<int>{7, 8, 8, 7});
  // The embedding slot alone: 31 + 1 over 4.
  LayerPartition e4(31, 4, {}, true, false);
  CHECK(std::vector<int>{e4.count(0), e4.count(1), e4.count(2), e4.count(3)} == std::vector<int>{7, 8, 8, 8});
}

TEST_CASE("compiler: embedding-only first and loss-only last pipeline pieces compile and the memory model agrees",
          "[plan]") {
  // 6 layers + 2 slots over 4 stages: [1, 2, 2, 1]; over 8 stages (v = 2 interleaved): [0, 1, 1, 1, 1, 1, 1, 0].
  Scenario s = base(1, 4, 1, 8);
  s.model.layers = 6;
  s.parallel.split_embedding = true;
  s.parallel.split_loss = true;
  s.schedule.kind = "interleaved";
  s.schedule.virtual_stages = 2;
  CompiledPlan p = compile_plan(s);
  // Stage 0 holds pieces 0 (empty: the embedding) and 4; stage 3 holds 3 and 7 (empty: the loss).
  CHECK(stage_memory_input(s, 0, StageHolding::full(1)).layers_on_stage == 1);
  CHECK(stage_memory_input(s, 3, StageHolding::full(1)).layers_on_stage == 1);
  CHECK(stage_memory_input(s, 1, StageHolding::full(1)).layers_on_stage == 2);
  // Every stage still sends one activation forward and one gradient backward per micro-batch and
  // boundary it owns: 8 micro-batches × 2 chunks, less the pipeline's two ends.
  int sends = 0;
  for (const auto& prog : p.programs)
    for (const auto& o : prog.ops) sends += o.kind == OpKind::send ? 1 : 0;
  CHECK(sends == 2 * 8 * (8 - 1));
}

TEST_CASE("compiler: the MoE all-to-all carries top_k copies of every token (padded buffers with a capacity factor)",
          "[plan]") {
  Scenario s = base(1, 1, 4, 2);
  s.model.moe = MoeSpec{8, 2, 4096, 1};
  s.parallel.ep = 4;
  const double tokens = 1024, h = 1024, e = 2;
  auto a2a = [](const CompiledPlan& p) {
    for (const auto& o : p.programs[0].ops)
      if (o.kind == OpKind::collective && o.comm == CommOp::all_to_all) return o.bytes;
    return 0.0;
  };
  CHECK(a2a(compile_plan(s)) == Approx(tokens * 2 * h * e));
  // Capacity 1.5: ceil(1.5 · 1024 · 2 / 8) = 384 tokens for each of the 8 experts.
  s.model.moe->capacity_factor = 1.5;
  CHECK(a2a(compile_plan(s)) == Approx(384 * 8 * h * e));
}
