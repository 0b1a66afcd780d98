#include "sim/plan/finetune.hpp"

#include <string>

namespace plansim {

const char* to_string(FinetuneMethod m) {
  switch (m) {
    case FinetuneMethod::full: return "full";
    case FinetuneMethod::lora: return "lora";
    case FinetuneMethod::frozen_layers: return "frozen_layers";
  }
  return "?";
}

const char* to_string(LoraTarget t) {
  switch (t) {
    case LoraTarget::qkv: return "qkv";
    case LoraTarget::proj: return "proj";
    case LoraTarget::fc1: return "fc1";
    case LoraTarget::fc2: return "fc2";
  }
  return "?";
}

namespace {

// The forward op (transformer.cpp) each target adapts, and the block it sits in.
struct TargetOp {
  LoraTarget target;
  const char* op;
  int block;
};
constexpr TargetOp kTargets[] = {{LoraTarget::qkv, "qkv", 0},
                                 {LoraTarget::proj, "attention_out", 0},
                                 {LoraTarget::fc1, "mlp_up", 1},
                                 {LoraTarget::fc2, "mlp_down", 1}};

bool adapts(const FinetuneSpec& f, int block) {
  if (f.method != FinetuneMethod::lora) return false;
  for (const TargetOp& t : kTargets)
    if (t.block == block && f.targets_has(t.target)) return true;
  return false;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool embedding_trained(const Scenario& s) { return s.training.finetune.is_full(); }

bool output_trained(const Scenario& s) { return s.training.finetune.method != FinetuneMethod::lora; }

bool layer_base_trained(const Scenario& s, int layer) {
  const FinetuneSpec& f = s.training.finetune;
  switch (f.method) {
    case FinetuneMethod::full: return true;
    case FinetuneMethod::lora: return false;
    case FinetuneMethod::frozen_layers: return layer >= f.frozen_layers;
  }
  return true;
}

bool gradient_enters(const Scenario& s, int layer) {
  const FinetuneSpec& f = s.training.finetune;
  switch (f.method) {
    case FinetuneMethod::full: return true;
    case FinetuneMethod::lora: return layer > 0 && f.targets != 0;  // every layer carries adapters
    case FinetuneMethod::frozen_layers: return layer > f.frozen_layers;
  }
  return true;
}

BlockTraining block_training(const Scenario& s, int layer, int block) {
  BlockTraining bt;
  bt.base = layer_base_trained(s, layer);
  bt.adapters = adapts(s.training.finetune, block);
  bt.input_grad = gradient_enters(s, layer);
  if (block == 1) {
    const BlockTraining below = block_training(s, layer, 0);
    bt.input_grad = below.input_grad || below.trains();
  }
  return bt;
}

BlockTraining output_training(const Scenario& s) {
  return BlockTraining{output_trained(s), false, gradient_enters(s, s.model.layers)};
}

bool layer_has_backward(const Scenario& s, int layer) {
  return block_training(s, layer, 0).has_backward() || block_training(s, layer, 1).has_backward();
}

bool gemm_trained(const Scenario& s, int layer, LoraTarget which) {
  const FinetuneSpec& f = s.training.finetune;
  return layer_base_trained(s, layer) || (f.method == FinetuneMethod::lora && f.targets_has(which));
}

std::vector<OpCost> with_adapters(const std::vector<OpCost>& ops, const FinetuneSpec& f, int block, double elem) {
  if (!adapts(f, block)) return ops;
  const double r = f.rank;
  std::vector<OpCost> out;
  for (const OpCost& op : ops) {
    out.push_back(op);
    for (const TargetOp& t : kTargets) {
      if (t.block != block || !f.targets_has(t.target) || op.name != t.op) continue;
      const double tok = op.dims.m, k = op.dims.k, n = op.dims.n;
      auto gemm = [&](const char* suffix, double kk, double nn) {
        return OpCost{op.name + suffix, OpClass::gemm, 2 * tok * kk * nn, (tok * kk + kk * nn + tok * nn) * elem,
                      GemmDims{tok, nn, kk, 1}};
      };
      out.push_back(gemm("_lora_a", k, r));
      out.push_back(gemm("_lora_b", r, n));
    }
  }
  return out;
}

std::vector<OpCost> finetune_backward(const std::vector<OpCost>& fwd, const BlockTraining& bt, BackwardPart part) {
  // need[i]: op i's input gradient (or, for a weight-free op, its backward) is needed: some trained
  // weight lies upstream of it. An adapter A reads its target's input; B reads A's output.
  std::vector<bool> need(fwd.size());
  bool upstream = bt.input_grad;
  bool target_upstream = upstream;  // before the last base GEMM (the target of following adapters)
  for (size_t i = 0; i < fwd.size(); ++i) {
    const std::string& n = fwd[i].name;
    if (ends_with(n, "_lora_a")) {
      need[i] = target_upstream;
    } else if (ends_with(n, "_lora_b")) {
      need[i] = true;
      upstream = true;
    } else {
      need[i] = upstream;
      target_upstream = upstream;
      if (fwd[i].cls == OpClass::gemm && bt.base) upstream = true;
    }
  }
  std::vector<OpCost> out;
  for (size_t j = fwd.size(); j-- > 0;) {
    const OpCost& op = fwd[j];
    const bool adapter = ends_with(op.name, "_lora_a") || ends_with(op.name, "_lora_b");
    const bool input = need[j] && part != BackwardPart::weight;
    const bool weight = op.cls == OpClass::gemm && (adapter || bt.base) && part != BackwardPart::input;
    if (input && weight) {
      for (OpCost& b : backward_of({op}, BackwardPart::both)) out.push_back(std::move(b));
    } else if (input || weight) {
      for (OpCost& b : backward_of({op}, input ? BackwardPart::input : BackwardPart::weight)) out.push_back(std::move(b));
    }
  }
  return out;
}

double adapter_params(const ModelSpec& m, const FinetuneSpec& f, int layer, int tp) {
  (void)layer;  // the same targets in every layer
  if (f.method != FinetuneMethod::lora) return 0;
  const double h = static_cast<double>(m.hidden), t = tp, r = f.rank;
  const double kv = static_cast<double>(m.kv_heads) * static_cast<double>(m.head_dim());
  const double ff = static_cast<double>(m.ffn_hidden) * (m.gated_mlp ? 2 : 1);
  double n = 0;
  if (f.targets_has(LoraTarget::qkv)) n += r * (h + (h + 2 * kv) / t);
  if (f.targets_has(LoraTarget::proj)) n += r * (h / t + h);
  if (f.targets_has(LoraTarget::fc1)) n += r * (h + ff / t);
  if (f.targets_has(LoraTarget::fc2)) n += r * (static_cast<double>(m.ffn_hidden) / t + h);
  return n;
}

double trained_parameters(const Scenario& s) {
  const ModelSpec& m = s.model;
  const ParamCount c = count_parameters(m);
  double n = (embedding_trained(s) ? c.embedding : 0) + (output_trained(s) ? c.output + c.final_norm : 0);
  for (int l = 0; l < m.layers; ++l) {
    n += adapter_params(m, s.training.finetune, l, 1);
    if (layer_base_trained(s, l)) n += m.is_moe_layer(l) ? c.per_moe_layer : c.per_dense_layer;
  }
  return n;
}

double finetune_model_flops(const Scenario& s) {
  const ModelSpec& m = s.model;
  const FinetuneSpec& f = s.training.finetune;
  const double e = dtype_size(m.dtype).value();
  const Shard whole;
  double flops = 0;
  for (int l = 0; l < m.layers; ++l) {
    const LayerForward lf = layer_forward(m, l, s.training.global_batch, whole);
    for (int b = 0; b < 2; ++b) {
      const std::vector<OpCost> fwd = with_adapters(b == 0 ? lf.attention : lf.mlp, f, b, e);
      flops += total_flops(fwd) + total_flops(finetune_backward(fwd, block_training(s, l, b), BackwardPart::both));
    }
  }
  const std::vector<OpCost> logits = logits_forward(m, s.training.global_batch, whole);
  return flops + total_flops(logits) + total_flops(finetune_backward(logits, output_training(s), BackwardPart::both));
}

}  // namespace plansim
