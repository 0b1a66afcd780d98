// Fine-tuning plans (training.finetune, sim/plan/finetune.hpp): gradient GEMMs only for trained
// weights, LoRA adapter GEMMs, DP payload and memory of trained parameters only. The notes' figures
// (SEEDS.md: 7B LoRA ~16 GB per GPU, all-reduce ~8 MB against 14 GB for a full fine-tune) as tests.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/small_scenario.hpp"

#include "sim/model/memory.hpp"
#include "sim/plan/finetune.hpp"
#include "sim/plan/plan_compiler.hpp"

using namespace plansim;

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct GemmCount {
  int wgrad = 0, dgrad = 0, adapter_fwd = 0, attention_bwd = 0;
};
// Kernels of every compute op of every program (one micro-batch: each backward GEMM once per rank).
GemmCount count_gemms(const CompiledPlan& p) {
  GemmCount c;
  for (const Program& prog : p.programs)
    for (const ProgramOp& op : prog.ops) {
      if (op.kind != OpKind::compute || op.recompute) continue;
      for (const OpCost& k : p.costs[op.cost].kernels) {
        if (ends_with(k.name, "_wgrad")) ++c.wgrad;
        if (ends_with(k.name, "_dgrad")) ++c.dgrad;
        if (ends_with(k.name, "_lora_a") || ends_with(k.name, "_lora_b")) ++c.adapter_fwd;
        if (k.cls == OpClass::attention && ends_with(k.name, "_bwd")) ++c.attention_bwd;
      }
    }
  return c;
}

double dp_bytes(const CompiledPlan& p, uint32_t rank, CommOp op) {
  double b = 0;
  for (const ProgramOp& o : p.programs[rank].ops)
    if (o.kind == OpKind::collective && o.stream == StreamKind::dp_comm && o.comm == op) b += o.bytes;
  return b;
}

void lora(Scenario& s, int rank, std::initializer_list<LoraTarget> targets) {
  s.training.finetune.method = FinetuneMethod::lora;
  s.training.finetune.rank = rank;
  s.training.finetune.targets = 0;
  for (LoraTarget t : targets) s.training.finetune.targets |= static_cast<uint8_t>(t);
}

// Llama 2 7B (Touvron et al. 2023, Table 1 and the released config: 32 layers, hidden 4096, 32 heads,
// SwiGLU 11008, vocabulary 32000): 6.74 B parameters.
Scenario llama2_7b(int dp) {
  Scenario s = testing::small_scenario(1, 1, dp, 1);
  s.model.layers = 32;
  s.model.hidden = 4096;
  s.model.heads = 32;
  s.model.kv_heads = 32;
  s.model.ffn_hidden = 11008;
  s.model.vocab = 32000;
  s.model.seq_len = 2048;
  s.model.gated_mlp = true;
  return s;
}

}  // namespace

TEST_CASE("finetune: method full keeps backward_of's ops exactly", "[plan][finetune]") {
  const Scenario s = testing::small_scenario(2, 1, 1, 1);
  const LayerForward f = layer_forward(s.model, 0, 1, Shard{2});
  for (BackwardPart part : {BackwardPart::both, BackwardPart::input, BackwardPart::weight}) {
    const auto want = backward_of(f.mlp, part);
    const auto got = finetune_backward(f.mlp, BlockTraining{}, part);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].name == want[i].name);
      CHECK(got[i].flops == want[i].flops);
    }
  }
  CHECK(finetune_model_flops(s) == Approx(model_flops_per_iteration(s.model, s.training.global_batch)));
}

TEST_CASE("finetune: gradient GEMMs in closed form (full, LoRA, frozen layers; 1F1B, zero-bubble, PP)",
          "[plan][finetune]") {
  // Dense 4h MLP: 4 GEMMs per layer (qkv, attention_out, mlp_up, mlp_down) and the logits GEMM.
  const int L = 8;
  for (const char* sched : {"1f1b", "zb-h1"}) {
    for (int pp : {1, 2}) {
      INFO(sched << " pp " << pp);
      Scenario s = testing::small_scenario(1, pp, 1, pp);
      s.training.global_batch = pp;  // pp micro-batches: every stage busy; counts are per micro-batch
      s.schedule.kind = sched;
      const double mbs = pp;
      GemmCount full = count_gemms(compile_plan(s));
      CHECK(full.wgrad == (4 * L + 1) * mbs);
      CHECK(full.dgrad == (4 * L + 1) * mbs);
      CHECK(full.adapter_fwd == 0);
      // LoRA on T targets: adapter weight gradients only (2 per target per layer); every data gradient
      // (4 base + 2 per target per layer, the logits') except those below the lowest trained weight:
      // in layer 0 the base GEMMs up to the first target and that target's A.
      struct Case {
        std::initializer_list<LoraTarget> targets;
        int count, first;
      };
      for (const Case& c : {Case{{LoraTarget::qkv}, 1, 0}, Case{{LoraTarget::qkv, LoraTarget::proj}, 2, 0},
                            Case{{LoraTarget::fc1, LoraTarget::fc2}, 2, 2},
                            Case{{LoraTarget::qkv, LoraTarget::proj, LoraTarget::fc1, LoraTarget::fc2}, 4, 0}}) {
        Scenario l = s;
        lora(l, 8, c.targets);
        INFO("targets " << c.count << " first " << c.first);
        const GemmCount g = count_gemms(compile_plan(l));
        CHECK(g.wgrad == 2 * c.count * L * mbs);
        CHECK(g.dgrad == (L * (4 + 2 * c.count) - (c.first + 2) + 1) * mbs);
        CHECK(g.adapter_fwd == 2 * c.count * L * mbs);
        CHECK(g.attention_bwd == (c.first >= 2 ? L - 1 : L) * mbs);
      }
      // Frozen layers: N layers and the embedding frozen; layer N's QKV needs no data gradient.
      for (int n : {0, 3, 4, 7}) {
        Scenario fl = s;
        fl.training.finetune.method = FinetuneMethod::frozen_layers;
        fl.training.finetune.frozen_layers = n;
        INFO("frozen " << n);
        const GemmCount g = count_gemms(compile_plan(fl));
        CHECK(g.wgrad == (4 * (L - n) + 1) * mbs);
        CHECK(g.dgrad == 4 * (L - n) * mbs);
        CHECK(g.attention_bwd == (L - n) * mbs);
      }
    }
  }
}

TEST_CASE("finetune: adapters' forward FLOPs are 2·t·r·(k + n) per target; LoRA backward skips weight gradients",
          "[plan][finetune]") {
  Scenario s = testing::small_scenario(1, 1, 1, 1);
  const double t = 1024, h = 1024, f = 4096, r = 16;  // tokens of the one sequence
  const double base = finetune_model_flops(s);
  lora(s, 16, {LoraTarget::qkv, LoraTarget::fc2});
  const double fwd_adapters = 2 * t * r * ((h + 3 * h) + (f + h)) * s.model.layers;
  // Per layer: forward F (base) + A (adapters); backward: data gradients of all base GEMMs and attention
  // (one F each), adapters 2A (both gradients), except layer 0's QKV data gradient and its A's.
  const double full_bwd = 2 * (base / 3);  // 3× forward in full
  const double wgrad_gemms = 2 * t * s.model.layers * (h * 3 * h + h * h + h * f + f * h) + 2 * t * h * 32000;
  const double layer0_skipped = 2 * t * h * 3 * h + 2 * t * h * r;
  const double want = base / 3 + fwd_adapters + (full_bwd - wgrad_gemms) + 2 * fwd_adapters - layer0_skipped;
  CHECK(finetune_model_flops(s) == Approx(want).epsilon(1e-12));
}

TEST_CASE("finetune: 7B DP payload per step: LoRA ~8-14 MB against ~14 GB for a full fine-tune (SEEDS.md)",
          "[plan][finetune]") {
  Scenario full = llama2_7b(2);
  const CompiledPlan pf = compile_plan(full);
  const double params = count_parameters(full.model).total;
  CHECK(params == Approx(6.738e9).epsilon(1e-3));
  CHECK(dp_bytes(pf, 0, CommOp::all_reduce) == Approx(2 * params));  // bf16 gradients: 13.5 GB
  CHECK(dp_bytes(pf, 0, CommOp::all_reduce) / 1e9 == Approx(14).epsilon(0.05));
  // LoRA r = 8 on QKV: r·(h + 3h) per layer = 4.19 M parameters, 8.4 MB; with the projection 12.6 MB.
  Scenario q = full;
  lora(q, 8, {LoraTarget::qkv});
  const double qkv = dp_bytes(compile_plan(q), 0, CommOp::all_reduce);
  CHECK(qkv == Approx(2.0 * 32 * 8 * (4096 + 3 * 4096)));
  CHECK(trained_parameters(q) * 2 == Approx(qkv));
  Scenario qp = full;
  lora(qp, 8, {LoraTarget::qkv, LoraTarget::proj});
  const double both = dp_bytes(compile_plan(qp), 0, CommOp::all_reduce);
  CHECK(both == Approx(2.0 * 32 * 8 * (4 * 4096 + 2 * 4096)));
  for (double b : {qkv, both}) {
    CHECK(b >= 8e6);
    CHECK(b <= 14e6);
  }
  // ZeRO-1: reduce-scatter of the same bytes, and the all-gather after the step returns only the updated
  // (adapter) weights: the frozen ones never change.
  qp.parallel.zero = 1;
  const CompiledPlan z1 = compile_plan(qp);
  CHECK(dp_bytes(z1, 0, CommOp::reduce_scatter) == Approx(both));
  CHECK(dp_bytes(z1, 0, CommOp::all_gather) == Approx(both));
  // ZeRO-3 (FSDP): every layer's weights, frozen ones included, are gathered in forward and again in
  // backward; only the adapters' gradients are reduce-scattered.
  qp.parallel.zero = 3;
  const CompiledPlan z3 = compile_plan(qp);
  CHECK(dp_bytes(z3, 0, CommOp::reduce_scatter) == Approx(both));
  const double layer_weights = count_parameters(qp.model).per_dense_layer + adapter_params(qp.model, qp.training.finetune, 0, 1);
  CHECK(dp_bytes(z3, 0, CommOp::all_gather) == Approx(2 * 32 * layer_weights * 2));
}

TEST_CASE("finetune: 7B per-GPU memory: LoRA ~16 GB, full DDP ~56 GB, FSDP over 4 ~14 GB (SEEDS.md)",
          "[plan][finetune][memory]") {
  auto memory = [](const Scenario& s) {
    const StageMemoryInput in{0, s.model.layers, s.model.layers, StageHolding::full(1), 0, 1, 1, 1};
    return stage_memory(s, in);
  };
  // The notes' simplification: 2 + 2 + 4 bytes per parameter (optimizer_bytes 4).
  Scenario full = llama2_7b(4);
  full.training.optimizer_bytes = 4;
  full.training.recompute = Recompute::full;
  const double params = count_parameters(full.model).total;
  CHECK(memory(full).model_states().value() == Approx(8 * params));  // 53.9 GB ~ the notes' 56 (7 B · 8)
  full.parallel.zero = 3;
  CHECK(memory(full).model_states().value() / 1e9 == Approx(13.5).epsilon(0.01));  // ~14 GB
  // LoRA r = 16 on QKV and the projection, mixed-precision Adam (16 B per trained parameter), one
  // 2048-token sequence per micro-batch with activation checkpointing (the usual LoRA recipe).
  Scenario l = llama2_7b(4);
  l.training.recompute = Recompute::full;
  lora(l, 16, {LoraTarget::qkv, LoraTarget::proj});
  const MemoryBreakdown m = memory(l);
  const double adapters = 32 * 16.0 * (4 * 4096 + 2 * 4096);
  CHECK(m.weights.value() == Approx(2 * (params + adapters)));
  CHECK(m.gradients.value() == Approx(2 * adapters));
  CHECK(m.optimizer.value() == Approx(12 * adapters));
  CHECK(m.total().value() / 1e9 > 14);
  CHECK(m.total().value() / 1e9 < 17);  // weights 13.5 + adapters' states 0.2 + activations and logits ~1
  // Without checkpointing the frozen GEMMs' inputs are not kept: less than a full fine-tune's activations.
  l.training.recompute = Recompute::none;
  Scenario f2 = llama2_7b(4);
  CHECK(memory(l).activations.value() < memory(f2).activations.value());
  const double tokens = 2048;
  const double dropped = tokens * (2 * 4096 + 2 * 11008 - 2 * 16 * 2);  // fc1 input, fc2 input; + X·A of 2 adapters
  CHECK(memory(f2).activations.value() - memory(l).activations.value() == Approx(32 * dropped));
}

TEST_CASE("finetune: frozen layers below a pipeline stage: no backward, no gradient sent, no states",
          "[plan][finetune]") {
  Scenario s = testing::small_scenario(1, 2, 1, 2);
  s.training.finetune.method = FinetuneMethod::frozen_layers;
  s.training.finetune.frozen_layers = 4;  // stage 0 holds layers 0-3: all frozen
  const CompiledPlan p = compile_plan(s);
  int stage0_backward = 0, grad_p2p = 0;
  for (const Program& prog : p.programs)
    for (const ProgramOp& op : prog.ops) {
      if (prog.stage == 0 && op.kind == OpKind::compute && op.phase != Phase::F) ++stage0_backward;
      if ((op.kind == OpKind::send || op.kind == OpKind::recv) && op.phase == Phase::B) ++grad_p2p;
    }
  CHECK(stage0_backward == 0);
  CHECK(grad_p2p == 0);
  const StageParams trained0 = stage_trained_parameters(s, 0, 4, true, false);
  CHECK(trained0.dense == 0);
  const StageParams trained1 = stage_trained_parameters(s, 4, 4, false, true);
  CHECK(trained1.dense == Approx(stage_parameters(s, 4, 4, false, true).dense));
  CHECK(activation_bytes_of_layer(s, 3).value() == 0);
  CHECK(activation_bytes_of_layer(s, 4).value() > 0);
  // One layer frozen fewer: stage 1 sends the gradient down again.
  s.training.finetune.frozen_layers = 3;
  int sends = 0;
  const CompiledPlan fewer = compile_plan(s);  // kept alive: a range-for over a temporary's member dangles
  for (const ProgramOp& op : fewer.programs[1].ops)
    if (op.kind == OpKind::send && op.phase == Phase::B) ++sends;
  CHECK(sends == 2);
}
