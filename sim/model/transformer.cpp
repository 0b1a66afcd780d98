#include "sim/model/transformer.hpp"

#include <numeric>

namespace plansim {
namespace {

double d(int64_t v) { return static_cast<double>(v); }

// A GEMM of a (tokens × k) input with a (k × n) weight: 2·t·k·n FLOPs; HBM traffic = input +
// weight + output, at `elem` bytes each.
OpCost gemm(std::string name, double t, double k, double n, double elem) {
  return OpCost{std::move(name), OpClass::gemm, 2 * t * k * n, (t * k + k * n + t * n) * elem, GemmDims{t, n, k, 1}};
}
OpCost eltwise(std::string name, double bytes) { return OpCost{std::move(name), OpClass::elementwise, 0, bytes}; }

}  // namespace

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::gemm: return "gemm";
    case OpClass::attention: return "attention";
    case OpClass::elementwise: return "elementwise";
  }
  return "?";
}

LayerForward layer_forward(const ModelSpec& m, int layer, int64_t batch, const Shard& sh) {
  const double e = dtype_size(m.dtype).value();
  const double tp = sh.tp, h = d(m.hidden), s = d(m.seq_len);
  const double t = d(batch) * s / sh.cp;                    // tokens on this rank
  const double t_norm = sh.sequence_parallel ? t / tp : t;  // tokens seen by norms/dropout (SP shards them)
  const double kv = d(m.kv_heads) * d(m.head_dim());
  LayerForward f;
  f.activation_tokens = t;
  f.attention.push_back(eltwise("input_norm", 2 * t_norm * h * e));
  f.attention.push_back(gemm("qkv", t, h, (h + 2 * kv) / tp, e));
  // Flash attention: scores and A·V for this rank's queries (s/cp) against all s keys, heads/tp.
  const double core_flops = 4 * d(batch) * (s / sh.cp) * s * h / tp;
  const double core_bytes = t * (2 * h + 2 * kv) / tp * e + (sh.cp > 1 ? d(batch) * s * 2 * kv / tp * e : 0);
  // As products (plansim-hw): per (sequence, head) QKᵀ = (s/cp × hd)·(hd × s) and A·V (s/cp × s)·(s × hd).
  const GemmDims core_dims{s / sh.cp, s, d(m.head_dim()), d(batch) * d(m.heads) / tp};
  f.attention.push_back(OpCost{"attention_core", OpClass::attention, core_flops, core_bytes, core_dims});
  f.attention.push_back(gemm("attention_out", t, h / tp, h, e));
  f.attention.push_back(eltwise("residual_dropout", 3 * t_norm * h * e));
  f.mlp.push_back(eltwise("post_attention_norm", 2 * t_norm * h * e));
  const int mats = m.gated_mlp ? 3 : 2;
  if (m.is_moe_layer(layer)) {
    const MoeSpec& moe = *m.moe;
    f.mlp.push_back(gemm("router", t_norm, h, d(moe.experts), e));
    // Balanced routing: this rank's experts see t·top_k tokens in all (tokens arrive via all-to-all).
    const double routed = t * moe.top_k;
    const double ff = d(moe.expert_ffn_hidden) / tp;
    const double experts_here = static_cast<double>(moe.experts) / sh.ep;
    OpCost up = gemm("expert_up", routed, h, ff * (mats - 1), e);
    OpCost down = gemm("expert_down", routed, ff, h, e);
    // Weights: every local expert's matrices are read once.
    up.hbm_bytes += (experts_here - 1) * h * ff * (mats - 1) * e;
    down.hbm_bytes += (experts_here - 1) * h * ff * e;
    f.mlp.push_back(up);
    f.mlp.push_back(eltwise("expert_activation", routed * ff * (mats == 3 ? 3 : 2) * e));
    f.mlp.push_back(down);
  } else {
    const double ff = d(m.ffn_hidden) / tp;
    f.mlp.push_back(gemm("mlp_up", t, h, ff * (mats - 1), e));
    f.mlp.push_back(eltwise("mlp_activation", t * ff * (mats == 3 ? 3 : 2) * e));
    f.mlp.push_back(gemm("mlp_down", t, ff, h, e));
  }
  f.mlp.push_back(eltwise("residual_dropout", 3 * t_norm * h * e));
  return f;
}

std::vector<OpCost> embedding_forward(const ModelSpec& m, int64_t batch, const Shard& sh) {
  const double t = d(batch) * d(m.seq_len) / sh.cp;
  const double e = dtype_size(m.dtype).value();
  return {eltwise("embedding_lookup", 2 * t * d(m.hidden) * e)};
}

std::vector<OpCost> logits_forward(const ModelSpec& m, int64_t batch, const Shard& sh) {
  const double t = d(batch) * d(m.seq_len) / sh.cp;
  const double e = dtype_size(m.dtype).value();
  const double v = d(m.vocab) / sh.tp;
  // Output projection, then softmax cross-entropy over fp32 logits (read logits, write fp32 probs).
  return {eltwise("final_norm", 2 * t * d(m.hidden) * e), gemm("logits", t, d(m.hidden), v, e),
          eltwise("cross_entropy", t * v * (e + 4 + 4))};
}

std::vector<OpCost> backward_of(const std::vector<OpCost>& fwd, BackwardPart part) {
  std::vector<OpCost> out;
  for (auto it = fwd.rbegin(); it != fwd.rend(); ++it) {
    OpCost b = *it;
    b.name += "_bwd";
    if (b.cls == OpClass::gemm) {
      // dX = dY·Wᵀ and dW = Xᵀ·dY, each the forward's FLOPs and traffic.
      // dgrad (t×n)·(n×k), wgrad (k×t)·(t×n); `both` keeps the dgrad shape (same FLOPs) twice.
      const GemmDims f = it->dims;
      b.dims = part == BackwardPart::weight ? GemmDims{f.k, f.n, f.m, f.batch} : GemmDims{f.m, f.k, f.n, f.batch};
      if (part == BackwardPart::weight) b.name = it->name + "_wgrad";
      if (part == BackwardPart::input) b.name = it->name + "_dgrad";
      const double k = part == BackwardPart::both ? 2 : 1;
      b.flops *= k;
      b.hbm_bytes *= k;
    } else if (part == BackwardPart::weight) {
      continue;  // attention and elementwise ops have no weights
    } else if (b.cls == OpClass::attention) {
      b.flops *= 2;  // dQ, dK, dV: two forward-sized GEMM pairs (Megatron's count)
      b.hbm_bytes *= 2;
    } else {
      b.hbm_bytes *= 2;  // read activation + incoming gradient, write gradient
    }
    out.push_back(std::move(b));
  }
  return out;
}

double total_flops(const std::vector<OpCost>& ops) {
  return std::accumulate(ops.begin(), ops.end(), 0.0, [](double a, const OpCost& o) { return a + o.flops; });
}

ParamCount count_parameters(const ModelSpec& m) {
  const double h = d(m.hidden), kv = d(m.kv_heads) * d(m.head_dim());
  const double bias = m.bias ? 1 : 0;
  const int mats = m.gated_mlp ? 3 : 2;
  ParamCount c;
  const double attention = h * (h + 2 * kv) + bias * (h + 2 * kv) + h * h + bias * h;
  const double norms = m.bias ? 4 * h : 2 * h;  // LayerNorm (γ, β) vs RMSNorm (γ)
  const double mlp = mats * h * d(m.ffn_hidden) + bias * ((mats - 1) * d(m.ffn_hidden) + h);
  c.per_dense_layer = attention + mlp + norms;
  if (m.moe) {
    const double ff = d(m.moe->expert_ffn_hidden);
    c.expert_params_per_moe_layer = m.moe->experts * (mats * h * ff + bias * ((mats - 1) * ff + h));
    c.per_moe_layer = attention + norms + h * m.moe->experts + c.expert_params_per_moe_layer;
  }
  c.embedding = d(m.vocab) * h + (m.learned_positions ? d(m.seq_len) * h : 0);
  c.output = m.tied_embeddings ? 0 : d(m.vocab) * h;
  c.final_norm = m.bias ? 2 * h : h;
  for (int l = 0; l < m.layers; ++l) c.total += m.is_moe_layer(l) ? c.per_moe_layer : c.per_dense_layer;
  c.total += c.embedding + c.output + c.final_norm;
  return c;
}

double model_flops_per_iteration(const ModelSpec& m, int64_t global_batch) {
  Shard whole;
  double fwd = 0;
  for (int l = 0; l < m.layers; ++l) {
    LayerForward f = layer_forward(m, l, global_batch, whole);
    fwd += total_flops(f.attention) + total_flops(f.mlp);
  }
  fwd += total_flops(logits_forward(m, global_batch, whole));
  return 3 * fwd;  // forward + backward (2× forward)
}

double megatron_model_flops(const ModelSpec& m, int64_t B) {
  const double h = d(m.hidden), s = d(m.seq_len), l = m.layers, V = d(m.vocab);
  return 72 * d(B) * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

double megatron_eq3_flops(const ModelSpec& m, int64_t B) {
  const double h = d(m.hidden), s = d(m.seq_len), l = m.layers, V = d(m.vocab);
  return 96 * d(B) * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

}  // namespace plansim
