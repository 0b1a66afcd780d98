#include "sim/model/memory.hpp"

#include <algorithm>

#include "sim/model/transformer.hpp"
#include "sim/plan/finetune.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {

MemoryBreakdown model_state_memory(double params, const TrainingSpec& t, int zero, int dp) {
  return model_state_memory(params, params, t, zero, dp);
}

MemoryBreakdown model_state_memory(double params, double trained, const TrainingSpec& t, int zero, int dp) {
  const double n = dp;
  MemoryBreakdown m;
  m.weights = Bytes(params * t.weight_bytes / (zero >= 3 ? n : 1));
  m.gradients = Bytes(trained * t.grad_bytes / (zero >= 2 ? n : 1));
  m.optimizer = Bytes(trained * t.optimizer_bytes / (zero >= 1 ? n : 1));
  return m;
}

namespace {

// One layer's saved tensors per token of one micro-batch, in bytes (16-bit activations, 1-byte
// dropout masks), split into what sequence parallelism divides by t and tensor parallelism alone
// does not (the replicated part) versus what TP always divides (Korthikanti et al. 2022, Sec. 4,
// generalised to GQA and gated MLPs; for GPT — MHA, 4h MLP, dropout — it is their 10h + 24h/t).
struct PerToken {
  double replicated = 0;  // divided by t only with sequence parallelism
  double split = 0;       // divided by t
};

double kv_width(const ModelSpec& m) {
  return static_cast<double>(m.kv_heads > 0 ? m.kv_heads : m.heads) * static_cast<double>(m.head_dim());
}
double ffn_width(const ModelSpec& m) {
  return static_cast<double>(m.ffn_hidden > 0 ? m.ffn_hidden : 4 * m.hidden);
}

// M_B: two norm inputs (4h), the QKV and MLP-up GEMM inputs (2h + 2h), dropout masks after the
// attention projection and the MLP (h + h); TP-split: Q (2h), K and V (4·kv), the projection input
// (2h), and the MLP's inner tensors: GeLU input and down-GEMM input (2f + 2f), or gate output, up
// output and their product for SwiGLU (6f).
// Q and the projection input are heads·head_dim wide (= h unless model.head_dim sets it apart).
// Transformer Engine's fp8 recipes (model.dtype fp8 with fp8_scaling delayed, the TE default; TE's current
// scaling and MXFP8 alike) keep each linear layer's input for its weight gradient as the fp8 tensor the
// forward GEMM read (TE Linear / LayerNormLinear / LayerNormMLP save the quantised `ln_out`, `inputmat`
// and activation output): the QKV and MLP-up inputs (the norms' outputs), the projection input and the
// MLP-down input take 1 byte per element instead of 2. What else is kept stays 16-bit (norm inputs,
// Q/K/V for the attention backward, the MLP's pre-activation). torchao's float8 (tensorwise, rowwise)
// is left at 2 bytes.
bool fp8_saved_inputs(const ModelSpec& m) { return m.dtype == DType::fp8 && m.fp8_scaling == Fp8Scaling::delayed; }

PerToken saved_for_backward(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden), f = ffn_width(m), q = static_cast<double>(m.q_width());
  PerToken pt{8 * h + (m.dropout ? 2 * h : 0), 4 * q + 4 * kv_width(m) + (m.gated_mlp ? 6 * f : 4 * f)};
  if (fp8_saved_inputs(m)) {
    pt.replicated -= 2 * h;  // the QKV and MLP-up inputs: 2h + 2h -> h + h
    pt.split -= q + f;       // the projection input 2q -> q, the MLP-down input 2f -> f
  }
  return pt;
}

// selective_op (torchtitan's per-op policy, op_sac_recompute in transformer.hpp): what a block keeps is
// its input (2h, the checkpoint's), the saved products wq (2q), wv (2·kv) and w1 (2f), SDPA's output (2q)
// and log-sum-exp (4 bytes per head), and under sequence parallelism the two TP reduce-scatters' outputs
// (2h each, sequence-sharded). Dense layers' tensors; an MoE layer is charged the same.
PerToken op_sac_saved(const ModelSpec& m, const ParallelSpec& p) {
  const double h = static_cast<double>(m.hidden), f = ffn_width(m), q = static_cast<double>(m.q_width());
  const double scatters = p.sequence_parallel && p.tp > 1 ? 4 * h : 0;
  return {2 * h + scatters, 4 * q + 2 * kv_width(m) + 4 * static_cast<double>(m.heads) + 2 * f};
}

// M_W: the weight GEMMs' inputs (QKV 2h, projection 2h, MLP-up 2h, MLP-down 2f) and output gradients
// (QKV 2h + 4·kv, projection 2h, MLP-up 2f or gate + up 4f, MLP-down 2h). Replicated without SP:
// the QKV and MLP-up inputs and the projection and MLP-down output gradients.
PerToken weight_grad_inputs(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden), f = ffn_width(m), q = static_cast<double>(m.q_width());
  return {8 * h, 2 * q + 2 * f + 2 * q + 4 * kv_width(m) + (m.gated_mlp ? 4 * f : 2 * f)};
}

// Fine-tuning: what a frozen GEMM without an adapter no longer needs kept (only its weight gradient
// reads its input): the QKV and MLP-up inputs (2h each, replicated), the MLP-down input (2f, split).
// Each LoRA adapter keeps X·A (2r, replicated) for B's weight gradient.
PerToken frozen_savings(const Scenario& s, int layer) {
  const ModelSpec& m = s.model;
  const double h = static_cast<double>(m.hidden), f = ffn_width(m);
  PerToken saved;
  if (!gemm_trained(s, layer, LoraTarget::qkv)) saved.replicated += 2 * h;
  if (!gemm_trained(s, layer, LoraTarget::fc1)) saved.replicated += 2 * h;
  if (!gemm_trained(s, layer, LoraTarget::fc2)) saved.split += 2 * f;
  const FinetuneSpec& ft = s.training.finetune;
  if (ft.method == FinetuneMethod::lora)
    for (LoraTarget t : {LoraTarget::qkv, LoraTarget::proj, LoraTarget::fc1, LoraTarget::fc2})
      if (ft.targets_has(t)) saved.replicated -= 2.0 * ft.rank;
  return saved;
}

// M_W terms of each GEMM (input + output gradient), kept only for trained GEMMs.
PerToken weight_grad_inputs(const Scenario& s, int layer) {
  const ModelSpec& m = s.model;
  const double h = static_cast<double>(m.hidden), f = ffn_width(m), kv = kv_width(m);
  PerToken pt;
  if (gemm_trained(s, layer, LoraTarget::qkv)) pt = {pt.replicated + 2 * h, pt.split + 2 * h + 4 * kv};
  if (gemm_trained(s, layer, LoraTarget::proj)) pt = {pt.replicated + 2 * h, pt.split + 2 * h};
  if (gemm_trained(s, layer, LoraTarget::fc1)) pt = {pt.replicated + 2 * h, pt.split + (m.gated_mlp ? 4 * f : 2 * f)};
  if (gemm_trained(s, layer, LoraTarget::fc2)) pt = {pt.replicated + 2 * h, pt.split + 2 * f};
  return pt;
}

double per_rank(PerToken pt, const ParallelSpec& p) {
  const double t = p.tp;
  return p.sequence_parallel ? (pt.replicated + pt.split) / t : pt.replicated + pt.split / t;
}

}  // namespace

Bytes activation_bytes_per_layer(const ModelSpec& m, int64_t micro_batch, const ParallelSpec& p, Recompute r,
                                 bool materialised) {
  const double s = static_cast<double>(m.seq_len), b = static_cast<double>(micro_batch);
  const double h = static_cast<double>(m.hidden), a = m.heads, t = p.tp;
  const double tokens = s / p.cp * b;
  if (r == Recompute::full) return Bytes(2 * tokens * h / (p.sequence_parallel ? t : 1));
  if (r == Recompute::selective_op) return Bytes(tokens * per_rank(op_sac_saved(m, p), p));
  // Without selective recompute, materialised attention also keeps the softmax output (2 bytes per
  // score) and, with dropout, its mask (1) and output (2): 5·a·s per token (Korthikanti), split by TP.
  // Flash attention keeps only per-row statistics (negligible).
  const double scores = r == Recompute::selective || !materialised ? 0 : (m.dropout ? 5 : 2) * a * s / t;
  return Bytes(tokens * (per_rank(saved_for_backward(m), p) + scores));
}

Bytes weight_grad_bytes_per_layer(const ModelSpec& m, int64_t micro_batch, const ParallelSpec& p) {
  const double tokens = static_cast<double>(m.seq_len) / p.cp * static_cast<double>(micro_batch);
  return Bytes(tokens * per_rank(weight_grad_inputs(m), p));
}

Bytes activation_bytes_of_layer(const Scenario& s, int layer) {
  const TrainingSpec& t = s.training;
  const ParallelSpec& p = s.parallel;
  const Bytes all = activation_bytes_per_layer(s.model, t.micro_batch, p, t.recompute, t.materialised_attention());
  if (t.finetune.is_full()) return all;
  if (!layer_has_backward(s, layer)) return Bytes(0);
  if (t.recompute == Recompute::full) return all;  // the layer's input
  const double tokens = static_cast<double>(s.model.seq_len) / p.cp * static_cast<double>(t.micro_batch);
  return Bytes(all.value() - tokens * per_rank(frozen_savings(s, layer), p));
}

Bytes weight_grad_bytes_of_layer(const Scenario& s, int layer) {
  const TrainingSpec& t = s.training;
  if (t.finetune.is_full()) return weight_grad_bytes_per_layer(s.model, t.micro_batch, s.parallel);
  const double tokens = static_cast<double>(s.model.seq_len) / s.parallel.cp * static_cast<double>(t.micro_batch);
  return Bytes(tokens * per_rank(weight_grad_inputs(s, layer), s.parallel));
}

int offloaded_layers(const TrainingSpec& t, int chunk_layers) {
  return std::clamp(t.activation_offload_layers, 0, std::max(0, chunk_layers - 1));
}

HeldChunks activation_peak_state(const Scenario& s, const StageHolding& held) {
  const TrainingSpec& t = s.training;
  return held.peak_state(activation_bytes_per_layer(s.model, t.micro_batch, s.parallel, t.recompute, t.materialised_attention()).value(),
                         weight_grad_bytes_per_layer(s.model, t.micro_batch, s.parallel).value());
}

StageParams stage_parameters(const Scenario& s, int stage, int first_layer, int layer_count) {
  return stage_parameters(s, first_layer, layer_count, stage == 0, stage == s.parallel.pp - 1);
}

StageParams stage_parameters(const Scenario& s, int first_layer, int layer_count, bool embedding, bool output) {
  const ModelSpec& m = s.model;
  const ParallelSpec& p = s.parallel;
  const ParamCount c = count_parameters(m);
  StageParams out;
  for (int l = first_layer; l < first_layer + layer_count; ++l) {
    if (m.is_moe_layer(l)) {
      out.dense += (c.per_moe_layer - c.expert_params_per_moe_layer) / p.tp;
      out.expert += c.expert_params_per_moe_layer / (p.expert_tp_size() * p.ep);
    } else {
      out.dense += c.per_dense_layer / p.tp;
    }
  }
  if (embedding) out.dense += c.embedding / p.tp;
  if (output) {
    out.dense += c.final_norm;
    // Tied embeddings: with pp > 1 the last stage keeps its own copy of the embedding matrix.
    out.dense += (m.tied_embeddings ? (p.pp > 1 ? static_cast<double>(m.vocab * m.hidden) : 0) : c.output) / p.tp;
  }
  return out;
}

StageParams stage_trained_parameters(const Scenario& s, int first_layer, int layer_count, bool embedding, bool output) {
  StageParams out;
  const bool emb = embedding && embedding_trained(s), outp = output && output_trained(s);
  for (int l = first_layer; l < first_layer + layer_count; ++l) {  // beyond the last layer: DualPipe's mirror
    out.adapters += adapter_params(s.model, s.training.finetune, l, s.parallel.tp);
    if (!layer_base_trained(s, l)) continue;
    const StageParams one = stage_parameters(s, l, 1, false, false);
    out.dense += one.dense;
    out.expert += one.expert;
  }
  const StageParams ends = stage_parameters(s, 0, 0, emb, outp);
  out.dense += ends.dense + out.adapters;
  out.expert += ends.expert;
  return out;
}

StageMemoryInput stage_memory_input(const Scenario& s, int stage, const StageHolding& held) {
  const PipelineLayout lay =
      schedule_layout(s.schedule.kind, {s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages});
  const LayerPartition part(s.model.layers, lay.pieces(), s.parallel.stage_layers, s.parallel.split_embedding,
                            s.parallel.split_loss);
  StageMemoryInput in{stage, 0, 0, held, part.first(lay.piece(stage, 0))};
  for (int chunk = 0; chunk < lay.chunks(); ++chunk) {
    const int n = part.count(lay.piece(stage, chunk));
    in.layers_on_stage += n;
    in.layers_per_chunk = std::max(in.layers_per_chunk, n);
  }
  in.has_embedding = lay.holds(stage, 0) ? 1 : 0;
  in.has_output = lay.holds(stage, lay.pieces() - 1) ? 1 : 0;
  in.state_replicas = lay.is_mirrored() ? 2 : 1;
  return in;
}

MemoryBreakdown stage_memory(const Scenario& s, const StageMemoryInput& in) {
  const ParallelSpec& p = s.parallel;
  // With several chunks a stage's layers are not contiguous; the indices only matter for which
  // layers are MoE (every-k), so the stage's first chunk's range is used.
  const int first = in.first_layer >= 0 ? in.first_layer : in.stage * in.layers_per_chunk;
  const bool embedding = in.has_embedding >= 0 ? in.has_embedding == 1 : in.stage == 0;
  const bool output = in.has_output >= 0 ? in.has_output == 1 : in.stage == p.pp - 1;
  StageParams sp = stage_parameters(s, first, in.layers_on_stage, embedding, output);
  const StageParams trained = stage_trained_parameters(s, first, in.layers_on_stage, embedding, output);
  sp.dense += trained.adapters;  // LoRA adapters: weights too
  const int holders = p.weight_replicas() * in.state_replicas;
  MemoryBreakdown dense = model_state_memory(sp.dense, trained.dense, s.training, p.zero, holders);
  MemoryBreakdown expert = model_state_memory(sp.expert, trained.expert, s.training, p.zero,
                                              p.expert_replicas() * in.state_replicas);
  MemoryBreakdown out;
  out.weights = dense.weights + expert.weights;
  out.gradients = dense.gradients + expert.gradients;
  out.optimizer = dense.optimizer + expert.optimizer;
  Bytes per_layer = activation_bytes_per_layer(s.model, s.training.micro_batch, p, s.training.recompute,
                                                s.training.materialised_attention());
  Bytes after_b = weight_grad_bytes_per_layer(s.model, s.training.micro_batch, p);
  if (!s.training.finetune.is_full() && in.layers_on_stage > 0) {
    // Fine-tuning: layers keep different activations (frozen ones none); the stage's mean per layer.
    per_layer = after_b = Bytes(0);
    for (int l = first; l < first + in.layers_on_stage; ++l) {  // clamped: DualPipe's mirror pieces
      per_layer += activation_bytes_of_layer(s, std::min(l, s.model.layers - 1));
      after_b += weight_grad_bytes_of_layer(s, std::min(l, s.model.layers - 1));
    }
    per_layer = per_layer / static_cast<double>(in.layers_on_stage);
    after_b = after_b / static_cast<double>(in.layers_on_stage);
  }
  // Activation offload (TrainingSpec::activation_offload_layers): min(N, k − 1) of a chunk's k layers keep
  // their saved tensors in host memory between F and B, so a held chunk weighs (k − off) / k of its
  // layers on the GPU; two offloaded layers' tensors are on it at any time (one copying out while the
  // next is produced; in the backward one reloading while the one before it is used).
  const int offloaded = offloaded_layers(s.training, in.layers_per_chunk);
  const Bytes in_transit = per_layer * static_cast<double>(std::min(offloaded, 2));
  if (offloaded > 0)
    per_layer = per_layer * (static_cast<double>(in.layers_per_chunk - offloaded) / in.layers_per_chunk);
  if (!in.held.layer_frontier.empty()) {
    out.activations = Bytes(in.held.layer_peak(per_layer.value(), after_b.value()));
  } else {
    const HeldChunks peak = activation_peak_state(s, in.held);
    const Bytes chunk = per_layer * static_cast<double>(peak.awaiting_b) + after_b * static_cast<double>(peak.awaiting_w);
    out.activations = chunk * static_cast<double>(in.layers_per_chunk);
  }
  if (offloaded > 0) out.activations += in_transit;
  // Temporary: fp32 logits and their gradient on the stage with the output layer; one gradient
  // bucket for DP; under ZeRO-3 two gathered layers (the current one and the prefetched one).
  const double tokens = static_cast<double>(s.training.micro_batch * s.model.seq_len) / p.cp;
  if (output) out.temporary += Bytes(8 * tokens * static_cast<double>(s.model.vocab) / p.tp);
  if (holders > 1)  // one bucket, or all the trained gradients when they are fewer (LoRA)
    out.temporary += std::min(s.training.grad_bucket, Bytes((trained.dense + trained.expert) * s.training.grad_bytes));
  if (p.zero >= 3 && in.layers_on_stage > 0)
    out.temporary += Bytes(2 * (sp.dense + sp.expert) / in.layers_on_stage * s.training.weight_bytes);
  return out;
}

}  // namespace plansim
