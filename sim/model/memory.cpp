#include "sim/model/memory.hpp"

#include <algorithm>

#include "sim/model/transformer.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {

MemoryBreakdown model_state_memory(double params, const TrainingSpec& t, int zero, int dp) {
  const double n = dp;
  MemoryBreakdown m;
  m.weights = Bytes(params * t.weight_bytes / (zero >= 3 ? n : 1));
  m.gradients = Bytes(params * t.grad_bytes / (zero >= 2 ? n : 1));
  m.optimizer = Bytes(params * t.optimizer_bytes / (zero >= 1 ? n : 1));
  return m;
}

Bytes activation_bytes_per_layer(const ModelSpec& m, int64_t micro_batch, const ParallelSpec& p, Recompute r) {
  const double s = static_cast<double>(m.seq_len), b = static_cast<double>(micro_batch);
  const double h = static_cast<double>(m.hidden), a = m.heads, t = p.tp;
  const double s_local = s / p.cp;
  const double sbh = s_local * b * h;
  const double attn = 5 * a * s / h;  // the softmax/dropout term (s·b·h·5as/h = 5·a·s²·b)
  if (r == Recompute::full) return Bytes(2 * sbh / (p.sequence_parallel ? t : 1));
  const double keep_attn = r == Recompute::selective ? 0 : 1;
  if (p.sequence_parallel) return Bytes(sbh / t * (34 + keep_attn * attn));
  return Bytes(sbh * (10 + 24 / t + keep_attn * attn / t));
}

Bytes weight_grad_bytes_per_layer(const ModelSpec& m, int64_t micro_batch, const ParallelSpec& p) {
  const double sbh =
      static_cast<double>(m.seq_len) / p.cp * static_cast<double>(micro_batch) * static_cast<double>(m.hidden);
  const double t = p.tp;
  if (p.sequence_parallel) return Bytes(sbh / t * 32);
  // Replicated under TP: QKV and MLP-up inputs (LN outputs, 2 + 2), projection and MLP-down output
  // gradients (2 + 2). Split: projection input 2, MLP-down input 8, QKV output gradient 6, MLP-up 8.
  return Bytes(sbh * (8 + 24 / t));
}

HeldChunks activation_peak_state(const Scenario& s, const StageHolding& held) {
  const TrainingSpec& t = s.training;
  return held.peak_state(activation_bytes_per_layer(s.model, t.micro_batch, s.parallel, t.recompute).value(),
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
      out.expert += c.expert_params_per_moe_layer / (p.tp * p.ep);
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

StageMemoryInput stage_memory_input(const Scenario& s, int stage, const StageHolding& held) {
  const PipelineLayout lay =
      schedule_layout(s.schedule.kind, {s.parallel.pp, s.micro_batches(), s.schedule.virtual_stages});
  const LayerPartition part(s.model.layers, lay.pieces(), s.parallel.stage_layers);
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
  const int holders = p.dp * in.state_replicas;
  MemoryBreakdown dense = model_state_memory(sp.dense, s.training, p.zero, holders);
  MemoryBreakdown expert = model_state_memory(sp.expert, s.training, p.zero, holders / p.ep);
  MemoryBreakdown out;
  out.weights = dense.weights + expert.weights;
  out.gradients = dense.gradients + expert.gradients;
  out.optimizer = dense.optimizer + expert.optimizer;
  const Bytes per_layer = activation_bytes_per_layer(s.model, s.training.micro_batch, p, s.training.recompute);
  const Bytes after_b = weight_grad_bytes_per_layer(s.model, s.training.micro_batch, p);
  const HeldChunks peak = activation_peak_state(s, in.held);
  const Bytes chunk = per_layer * static_cast<double>(peak.awaiting_b) + after_b * static_cast<double>(peak.awaiting_w);
  out.activations = chunk * static_cast<double>(in.layers_per_chunk);
  // Temporary: fp32 logits and their gradient on the stage with the output layer; one gradient
  // bucket for DP; under ZeRO-3 two gathered layers (the current one and the prefetched one).
  const double tokens = static_cast<double>(s.training.micro_batch * s.model.seq_len) / p.cp;
  if (output) out.temporary += Bytes(8 * tokens * static_cast<double>(s.model.vocab) / p.tp);
  if (holders > 1) out.temporary += s.training.grad_bucket;
  if (p.zero >= 3 && in.layers_on_stage > 0)
    out.temporary += Bytes(2 * (sp.dense + sp.expert) / in.layers_on_stage * s.training.weight_bytes);
  return out;
}

}  // namespace plansim
