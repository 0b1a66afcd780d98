#include "sim/model/transformer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace plansim {
namespace {

double d(int64_t v) { return static_cast<double>(v); }

// A GEMM of a (tokens × k) input with a (k × n) weight: 2·t·k·n FLOPs; HBM traffic = input +
// weight + output, at `elem` bytes each.
OpCost gemm(std::string name, double t, double k, double n, double elem) {
  return OpCost{std::move(name), OpClass::gemm, 2 * t * k * n, (t * k + k * n + t * n) * elem, GemmDims{t, n, k, 1}};
}
// The same GEMM run as `chunks` pipelined pieces of t/chunks tokens each (TP communication overlap's
// ring steps, Shard::tp_overlap_chunks): the work is unchanged, each piece is timed by its own shape.
OpCost chunked(OpCost g, int chunks) {
  if (chunks <= 1) return g;
  g.dims.m /= chunks;
  g.token_chunks = chunks;
  return g;
}
OpCost eltwise(std::string name, double bytes) { return OpCost{std::move(name), OpClass::elementwise, 0, bytes}; }

// fp8: attach the quantisation kernels of a (not yet chunked) GEMM; `weights` products side by side
// (a grouped GEMM's local experts: each its own M×K input and K×N weight, cast by the same kernels).
OpCost with_casts(OpCost g, const ModelSpec& m, const Shard& sh, const CastSite& site) {
  if (m.dtype != DType::fp8) return g;
  CastSite at = site;
  at.weight_shard = sh.fp8_weight_shard;
  const GemmCasts c = fp8_gemm_casts(m.fp8_scaling, g.dims.m, g.dims.k, g.dims.n, at, sh.micro_batches);
  const double b = g.dims.batch;
  g.casts = {c.forward.bytes * b, c.forward.kernels};
  g.dgrad_casts = {c.dgrad.bytes * b, c.dgrad.kernels};
  g.wgrad_casts = {c.wgrad.bytes * b, c.wgrad.kernels};
  return g;
}

// Where each fp8 GEMM of a dense layer takes its operands from (layer_forward).
struct LayerCastSites {
  CastSite qkv, out, up, down;
};
LayerCastSites layer_cast_sites(const Shard& sh) {
  const double seq_shard = sh.sequence_parallel && sh.tp > 1 ? 1.0 / sh.tp : 1.0;
  return {CastSite{true, false, seq_shard, 1}, CastSite{false, false, 1, seq_shard}, CastSite{true, true, seq_shard, 1},
          CastSite{true, false, 1, seq_shard}};
}

const OpCost* find_op(const std::vector<OpCost>& ops, const std::string& name) {
  for (const OpCost& o : ops)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace

double activation_element_bytes(DType dt) { return dt == DType::fp8 ? 2.0 : dtype_size(dt).value(); }

double attention_pairs(const AttentionSpec& a, double s) {
  if (!a.causal) return s * s;
  const double w = static_cast<double>(a.window);
  if (w > 0 && w < s) return w * (w + 1) / 2 + (s - w) * w;
  return s * (s + 1) / 2;
}

double mean_attention_pairs(const AttentionSpec& a, double s) {
  if (a.window_every <= 1) return attention_pairs(a, s);
  AttentionSpec dense = a;
  dense.window = 0;
  return (attention_pairs(a, s) + (a.window_every - 1) * attention_pairs(dense, s)) / a.window_every;
}

double flash_executed_pairs(const AttentionSpec& a, double s, int calls) {
  const double tile = std::min(kFlashQueryTile, s);
  auto one = [&](const AttentionSpec& kind) {
    const bool band = kind.causal && kind.window > 0 && static_cast<double>(kind.window) < s;
    const double waste = !kind.causal ? 0 : band ? tile - 1 : (tile - 1) / 2;  // per query row
    return attention_pairs(kind, s) + s * waste;
  };
  double pairs = one(a);
  if (a.window_every > 1) {
    AttentionSpec dense = a;
    dense.window = 0;
    pairs = (pairs + (a.window_every - 1) * one(dense)) / a.window_every;
  }
  return pairs + s * kFlashRowOverheadKeys * calls;
}

Shard shard_of(const Scenario& s) {
  Shard sh{s.parallel.tp, s.parallel.cp, s.parallel.ep, s.parallel.sequence_parallel, !s.training.materialised_attention()};
  sh.expert_tp = s.parallel.expert_tp_size();
  return sh;
}

double flash_head_dim_padding(int64_t head_dim) {
  if (head_dim <= 0) return 1;
  const int64_t rounded = (head_dim + 31) / 32 * 32;  // the kernels: 32, 64, 96, ..., 256
  return static_cast<double>(rounded) / static_cast<double>(head_dim);
}

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::gemm: return "gemm";
    case OpClass::attention: return "attention";
    case OpClass::elementwise: return "elementwise";
    case OpClass::host_copy: return "host_copy";
  }
  return "?";
}

LayerForward layer_forward(const ModelSpec& m, int layer, int64_t batch, const Shard& sh) {
  const double e = dtype_size(m.dtype).value();       // GEMM operands
  const double a = activation_element_bytes(m.dtype);  // activations between kernels
  const double tp = sh.tp, h = d(m.hidden), s = d(m.seq_len);
  const double t = d(batch) * s / sh.cp;                    // tokens on this rank
  const double t_norm = sh.sequence_parallel ? t / tp : t;  // tokens seen by norms/dropout (SP shards them)
  const double kv = d(m.kv_heads) * d(m.head_dim());
  const double q = d(m.q_width());  // = h unless model.head_dim sets it apart
  LayerForward f;
  f.activation_tokens = t;
  // Where each fp8 GEMM's operands come from (CastSite): the norms feed qkv and mlp_up, the activation
  // feeds mlp_down, and its backward produces mlp_up's output gradient; under sequence parallelism the
  // column-parallel inputs and the row-parallel output gradients are gathered from sequence shards.
  // The fused qkv and gate/up GEMMs cast their shared input once: torchtitan's separate wq/wk/wv (w1/w3)
  // do so under TP by design (torchao PrepareFloat8ModuleInput: "if there are multiple float8 users of
  // the input activation, we perform fp8 allgather only once"); without TP this assumes torch.compile
  // merges the identical casts of one tensor (common-subexpression elimination; not verified).
  const auto [qkv_site, out_site, up_site, down_site] = layer_cast_sites(sh);
  f.attention.push_back(eltwise("input_norm", 2 * t_norm * h * a));
  f.attention.push_back(chunked(with_casts(gemm("qkv", t, h, (q + 2 * kv) / tp, e), m, sh, qkv_site), sh.tp_overlap_chunks));
  // Rotary position embeddings (a model without learned positions): a kernel reads and writes the queries
  // and keys (Transformer Engine's fused RoPE, torchtitan's compiled complex product); backward the same.
  if (!m.learned_positions) f.attention.push_back(eltwise("rope", 2 * t * (q + kv) / tp * a));
  // Attention: scores and A·V for this rank's queries (s/cp) against all s keys, heads/tp. Model FLOPs
  // count every pair (Megatron); the kernel executes the pairs its mask leaves: a causal flash kernel
  // skips the blocks above the diagonal, and with CP Megatron's load-balanced split (the sequence cut
  // into 2·cp chunks, rank i taking chunks i and 2cp−1−i) gives every rank s(s+1)/(2cp) pairs per
  // sequence, the same fraction (s+1)/2s. A materialised kernel computes all s² pairs and masks them.
  const double core_flops = 4 * d(batch) * (s / sh.cp) * s * q / tp;
  const double core_bytes = t * (2 * q + 2 * kv) / tp * a + (sh.cp > 1 ? d(batch) * s * 2 * kv / tp * a : 0);
  // As products (plansim-hw): per (sequence, head) QKᵀ = (s/cp × hd)·(hd × s) and A·V (s/cp × s)·(s × hd).
  const GemmDims core_dims{s / sh.cp, s, d(m.head_dim()), d(batch) * d(m.heads) / tp};
  OpCost core{"attention_core", OpClass::attention, core_flops, core_bytes, core_dims};
  if (sh.flash_attention) {
    core.executed = flash_executed_pairs(m.attention, s, sh.cp) / (s * s) * flash_head_dim_padding(m.head_dim());
    // One exponential per executed score: this rank's s/cp queries of each sequence and heads/tp heads,
    // over the mask's share of the s keys.
    core.exps = d(batch) * (s / sh.cp) * d(m.heads) / tp * flash_executed_pairs(m.attention, s, sh.cp) / s;
    core.backward_executed = 5.0 / 4.0;  // FA2 backward: QKᵀ recomputed, dV, dP, dQ, dK
  } else {
    // Megatron-LM 2021 (megatron/model/transformer.py, ParallelAttention): torch.baddbmm writes the scores
    // (QKᵀ's epilogue, timed with that GEMM), FusedScaleMaskSoftmax reads and writes them, the attention
    // dropout (torch dropout) reads them and writes the dropped probabilities and a 1-byte mask, torch.bmm
    // (A·V) reads them: 3 passes of a bytes beside the products, + 2 and the mask with dropout. Backward
    // (autograd of the same ops; the fused softmax's backward kernel reads the incoming gradient and the
    // saved softmax output and writes dS in place): dP = dO·Vᵀ writes dP (its epilogue), dV = Pᵀ·dO reads
    // P, the dropout backward reads dP and the mask and writes, the softmax backward reads 2 and writes
    // 1, dQ = dS·K and dK = dSᵀ·Q each read dS: 6 passes beside the products, + 2 and the mask.
    const double scores = d(batch) * d(m.heads) / tp * (s / sh.cp) * s;
    const double dropout = m.dropout ? 2 * a + 1 : 0;
    core.unfused_bytes = scores * (3 * a + dropout);
    core.backward_unfused_bytes = scores * (6 * a + dropout);
    core.score_products = 1;
    core.value_products = 1;
  }
  f.attention.push_back(core);
  f.attention.push_back(chunked(with_casts(gemm("attention_out", t, q / tp, h, e), m, sh, out_site), sh.tp_overlap_chunks));
  f.attention.push_back(eltwise("residual_dropout", 3 * t_norm * h * a));
  f.mlp.push_back(eltwise("post_attention_norm", 2 * t_norm * h * a));
  const int mats = m.gated_mlp ? 3 : 2;
  if (m.is_moe_layer(layer)) {
    const MoeSpec& moe = *m.moe;
    const double experts = moe.experts, k = moe.top_k;
    f.mlp.push_back(gemm("router", t_norm, h, experts, e));
    // Softmax over fp32 router logits (read, write) and the top-k choice (k fp32 weights + k int64 indices).
    f.mlp.push_back(eltwise("router_topk", t_norm * experts * 4 * 2 + t_norm * k * 12));
    // Balanced routing: this rank's experts see t_moe·top_k tokens in all (tokens arrive via all-to-all),
    // routed / local tokens each: one grouped GEMM over the local experts. t_moe: the tokens whose copies
    // this rank's expert TP group shares, t (the TP group's; its ranks gathered them) with the experts split
    // as the dense layers, the rank's sequence shard t·expert_tp/tp when they fold (Shard::expert_tp).
    const double etp = sh.expert_tp > 0 ? sh.expert_tp : tp;
    const double t_moe = t * etp / tp;
    const double routed = t_moe * k;
    const double ff = d(moe.expert_ffn_hidden) / etp;
    const double local = experts / sh.ep;
    // Megatron's drop-and-pad: each expert takes ceil(cf · t·k/E) tokens from each of the ep source
    // ranks, padding included (executed > counted when cf > 1, tokens dropped when cf < 1).
    double per_expert = routed / local;
    if (moe.capacity_factor) per_expert = std::ceil(*moe.capacity_factor * t_moe * k / experts) * sh.ep;
    const double padded = per_expert * local / routed;
    const ExpertGemm grouped{true, false, !moe.capacity_factor && sh.ep > 1};
    // Permutation: gather each token's k copies into expert order (read t_moe·h, write t_moe·k·h); the
    // unpermutation reads them back and sums the k weighted copies per token.
    f.mlp.push_back(eltwise("token_permute", (t_moe + routed * padded) * h * a));
    auto expert_gemm = [&](std::string name, double kk, double nn) {
      OpCost g = gemm(std::move(name), routed, kk, nn, e);
      g.dims = GemmDims{per_expert, nn, kk, local};
      g.executed = padded;
      g.expert = grouped;
      // Every local expert's weights are read once; activations as executed.
      g.hbm_bytes = (per_expert * local * (kk + nn) + local * kk * nn) * e;
      // Permuted tokens and Megatron-Core's own expert activation are not the stack's fused kernels.
      return with_casts(g, m, sh, CastSite{});
    };
    f.mlp.push_back(expert_gemm("expert_up", h, ff * (mats - 1)));
    f.mlp.push_back(eltwise("expert_activation", routed * padded * ff * (mats == 3 ? 3 : 2) * a));
    f.mlp.push_back(expert_gemm("expert_down", ff, h));
    f.mlp.push_back(eltwise("token_unpermute", (routed * padded + t_moe) * h * a));
  } else {
    const double ff = d(m.ffn_hidden) / tp;
    f.mlp.push_back(chunked(with_casts(gemm("mlp_up", t, h, ff * (mats - 1), e), m, sh, up_site), sh.tp_overlap_chunks));
    f.mlp.push_back(eltwise("mlp_activation", t * ff * (mats == 3 ? 3 : 2) * a));
    f.mlp.push_back(chunked(with_casts(gemm("mlp_down", t, ff, h, e), m, sh, down_site), sh.tp_overlap_chunks));
  }
  f.mlp.push_back(eltwise("residual_dropout", 3 * t_norm * h * a));
  return f;
}

LayerForward op_sac_recompute(const ModelSpec& m, int layer, int64_t batch, const Shard& sh) {
  const LayerForward f = layer_forward(m, layer, batch, sh);
  const double e = dtype_size(m.dtype).value();
  const double tp = sh.tp, h = d(m.hidden), t = d(batch) * d(m.seq_len) / sh.cp;
  const LayerCastSites sites = layer_cast_sites(sh);
  LayerForward r;
  r.activation_tokens = f.activation_tokens;
  auto keep = [](std::vector<OpCost>& out, const std::vector<OpCost>& from, const char* name) {
    if (const OpCost* o = find_op(from, name)) out.push_back(*o);
  };
  // Attention block: wq (1st mm) and wv (3rd) are saved, the SDPA output too; wk (2nd) is re-run for
  // the rotated keys SDPA's backward reads, and the norm for the input the three weight gradients read.
  keep(r.attention, f.attention, "input_norm");
  const double kv = d(m.kv_heads) * d(m.head_dim());
  r.attention.push_back(with_casts(gemm("qkv_k", t, h, kv / tp, e), m, sh, sites.qkv));
  keep(r.attention, f.attention, "rope");  // the rotated queries and keys SDPA's backward reads
  // Without sequence parallelism wo's output reaches the MLP through a TP all-reduce, which is not
  // saved: wo (4th mm) is re-run for it. With it, the reduce-scatter's output is saved.
  if (sh.tp > 1 && !sh.sequence_parallel) keep(r.attention, f.attention, "attention_out");
  keep(r.mlp, f.mlp, "post_attention_norm");
  if (m.is_moe_layer(layer)) {
    // The router GEMM (5th mm) is saved; the grouped expert GEMMs are not mm and are re-run with the
    // routing and permutation around them (the routing weights' gradient reads the experts' outputs).
    for (const char* name : {"router_topk", "token_permute", "expert_up", "expert_activation", "expert_down"})
      keep(r.mlp, f.mlp, name);
    return r;
  }
  // Dense MLP: w1 (5th mm) saved, w3 (6th, the gated MLP's up projection) re-run, the activation re-run
  // for w2's input; w2 (7th) is saved. A non-gated MLP (w1, w2: 5th, 6th) re-runs only the activation.
  if (m.gated_mlp)
    r.mlp.push_back(with_casts(gemm("mlp_up_w3", t, h, d(m.ffn_hidden) / tp, e), m, sh, sites.up));
  keep(r.mlp, f.mlp, "mlp_activation");
  return r;
}

LayerForward recomputed_forward(const ModelSpec& m, Recompute r, int layer, int64_t batch, const Shard& sh) {
  switch (r) {
    case Recompute::none: return LayerForward{};
    case Recompute::selective_op: return op_sac_recompute(m, layer, batch, sh);
    case Recompute::full: return layer_forward(m, layer, batch, sh);
    case Recompute::selective: break;
  }
  const LayerForward f = layer_forward(m, layer, batch, sh);
  LayerForward core;
  core.activation_tokens = f.activation_tokens;
  for (const auto& k : f.attention)
    if (k.cls == OpClass::attention) core.attention.push_back(k);
  return core;
}

std::vector<OpCost> embedding_forward(const ModelSpec& m, int64_t batch, const Shard& sh) {
  const double t = d(batch) * d(m.seq_len) / sh.cp;
  const double a = activation_element_bytes(m.dtype);
  return {eltwise("embedding_lookup", 2 * t * d(m.hidden) * a)};
}

std::vector<OpCost> logits_forward(const ModelSpec& m, int64_t batch, const Shard& sh) {
  const double t = d(batch) * d(m.seq_len) / sh.cp;
  const double e = dtype_size(m.dtype).value();
  const double v = d(m.vocab) / sh.tp;
  // Output projection, then softmax cross-entropy over fp32 logits (read logits, write fp32 probs).
  const double a = activation_element_bytes(m.dtype);
  return {eltwise("final_norm", 2 * t * d(m.hidden) * a), gemm("logits", t, d(m.hidden), v, e),
          eltwise("cross_entropy", t * v * (a + 4 + 4))};
}

std::vector<OpCost> backward_of(const std::vector<OpCost>& fwd, BackwardPart part) {
  std::vector<OpCost> out;
  for (auto it = fwd.rbegin(); it != fwd.rend(); ++it) {
    OpCost b = *it;
    b.name += "_bwd";
    if (b.cls == OpClass::gemm) {
      // dX = dY·Wᵀ: (t×n)·(n×k); dW = Xᵀ·dY: (k×t)·(t×n) (K = tokens). Each the forward's FLOPs and traffic.
      const GemmDims f = it->dims;
      OpCost w = b;
      w.name = it->name + "_wgrad";
      w.dims = GemmDims{f.k, f.n, f.m * it->token_chunks, f.batch};  // weight gradients run whole
      w.token_chunks = 1;
      w.expert.tokens_in_k = true;
      w.casts = it->wgrad_casts;
      w.dgrad_casts = w.wgrad_casts = QuantiseCost{};
      if (part == BackwardPart::weight) {
        out.push_back(std::move(w));
        continue;
      }
      b.name = it->name + "_dgrad";
      b.dims = GemmDims{f.m, f.k, f.n, f.batch};
      b.casts = it->dgrad_casts;
      b.dgrad_casts = b.wgrad_casts = QuantiseCost{};
      out.push_back(std::move(b));
      if (part == BackwardPart::both) out.push_back(std::move(w));
      continue;
    } else if (part == BackwardPart::weight) {
      continue;  // attention and elementwise ops have no weights
    } else if (b.cls == OpClass::attention) {
      b.flops *= 2;  // dQ, dK, dV: two forward-sized GEMM pairs (Megatron's count)
      b.hbm_bytes *= 2;
      b.unfused_bytes = it->backward_unfused_bytes;  // see layer_forward
      b.backward_unfused_bytes = 0;
      b.executed *= b.backward_executed;
      if (b.score_products + b.value_products > 0) {  // dP = dO·Vᵀ (scores' shape); dV, dQ, dK (values')
        b.score_products = 1;
        b.value_products = 3;
      }
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
  const double h = d(m.hidden), kv = d(m.kv_heads) * d(m.head_dim()), q = d(m.q_width());
  const double bias = m.bias ? 1 : 0;
  const int mats = m.gated_mlp ? 3 : 2;
  ParamCount c;
  const double attention = h * (q + 2 * kv) + bias * (q + 2 * kv) + q * h + bias * h;
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
