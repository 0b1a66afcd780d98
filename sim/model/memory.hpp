#pragma once
// Per-rank memory: parameters, gradients and optimizer states by ZeRO stage, activations by
// schedule and recompute, temporary buffers.
//
// Model states use the per-parameter byte counts of TrainingSpec: mixed-precision Adam is 2 (bf16
// weights) + 2 (gradients) + 12 (fp32 master + m + v) = 16 B/param; the seeds' simplified rule is
// 2 + 2 + 4 = 8. ZeRO-1 shards optimizer states over DP, ZeRO-2 also gradients, ZeRO-3 also weights.
//
// Activations per layer per micro-batch follow Korthikanti et al. 2022 (Table 2), in bytes for a
// 16-bit GPT layer, s = sequence, b = micro-batch, h = hidden, a = heads, t = TP degree:
//   no TP:           s·b·h·(34 + 5·a·s/h)
//   TP:              s·b·h·(10 + 24/t + 5·a·s/(h·t))
//   TP + SP:         s·b·h/t·(34 + 5·a·s/h)
//   selective recompute drops the 5·a·s/h term (attention scores are recomputed);
//   full recompute keeps only each layer's input, 2·s·b·h (/t with SP).
// With CP each rank holds s/cp of the sequence (the a·s² term becomes a·s·s/cp).
// The constants are GPT's (4h MLP, MHA); they are applied unchanged to GQA/gated models and to MoE
// layers (the experts count as one 4h MLP per token).
//
// Schedules that split backward (zero-bubble, DualPipe): after its input-gradient pass B a
// micro-batch's chunk keeps only what its weight-gradient pass W reads, M_W, until W (Qi et al.
// 2024, "Zero Bubble Pipeline Parallelism", Sec. 2.3 and Table 1: M_B = sb(34h + 5as), M_W = 32sbh).
// Derived from the same tensor list: each weight GEMM's W needs its input and its output gradient.
//   inputs kept from the forward:   QKV (LN1 output) 2sbh, attention projection (context) 2sbh,
//                                   MLP up (LN2 output) 2sbh, MLP down (GeLU output) 8sbh  = 14sbh
//   output gradients B produced:    QKV 3·2sbh, projection 2sbh, MLP up 8sbh, MLP down 2sbh = 18sbh
//   no TP: 32·s·b·h; TP: s·b·h·(8 + 24/t) (LN outputs and the row-parallel outputs' gradients are
//   replicated, the rest split); TP + SP: 32·s·b·h/t (stored sharded, as Korthikanti stores the LN
//   outputs; the all-gathers W would repeat are not simulated). No recompute mode changes it: none
//   of these is an attention-score term, and under full recompute B re-creates them and they stay
//   until W (so M_W > M_B there: deferring W costs memory). MoE: the experts' GEMMs take the MLP's
//   terms, as above; the router's output gradient (s·b·experts) is left out.
//   A stage's activations = layers per chunk × max over its states of
//     (chunks awaiting B) · M_B + (chunks awaiting W) · M_W      (sched/holding.hpp)
#include "sim/core/units.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/sched/holding.hpp"

namespace plansim {

struct MemoryBreakdown {
  Bytes weights;
  Bytes gradients;
  Bytes optimizer;
  Bytes activations;
  Bytes temporary;
  [[nodiscard]] Bytes model_states() const { return weights + gradients + optimizer; }
  [[nodiscard]] Bytes total() const { return weights + gradients + optimizer + activations + temporary; }
};

// Model states of `params` parameters on one rank of a DP group of `dp` ranks at ZeRO stage `zero`.
MemoryBreakdown model_state_memory(double params, const TrainingSpec& t, int zero, int dp);
// Fine-tuning: `params` weights held, gradients and optimizer states for the `trained` among them.
MemoryBreakdown model_state_memory(double params, double trained, const TrainingSpec& t, int zero, int dp);

// Activation bytes for one layer and one micro-batch on one rank (M_B): Korthikanti et al. 2022's
// count, from the model's shapes (GQA, gated MLP, dropout or not; see memory.cpp).
// `materialised`: the attention kernel keeps the s×s scores (TrainingSpec::attention).
Bytes activation_bytes_per_layer(const ModelSpec& m, int64_t micro_batch, const ParallelSpec& p, Recompute r,
                                 bool materialised);
// What one layer of one micro-batch still holds between its B and its W on one rank (M_W, above).
Bytes weight_grad_bytes_per_layer(const ModelSpec& m, int64_t micro_batch, const ParallelSpec& p);

// Fine-tuning (training.finetune, plan/finetune.hpp): M_B and M_W of layer `layer`. A layer with no
// backward keeps nothing; a frozen GEMM without adapter drops its input (only its weight gradient reads
// it: QKV and MLP-up inputs 2h, MLP-down input 2f); each adapter keeps X·A (2r); M_W counts the trained
// GEMMs' terms only. Method full: the two functions above.
Bytes activation_bytes_of_layer(const Scenario& s, int layer);
Bytes weight_grad_bytes_of_layer(const Scenario& s, int layer);

// Activation offload (TrainingSpec::activation_offload_layers): how many of a k-layer chunk's layers are
// offloaded, min(N, k − 1). The memory model and the plan's copies both read it.
int offloaded_layers(const TrainingSpec& t, int chunk_layers);

// The state of `held` at which a stage's activations peak under the scenario's M_B and M_W.
HeldChunks activation_peak_state(const Scenario& s, const StageHolding& held);

// Full per-rank memory of pipeline stage `stage`.
struct StageMemoryInput {
  int stage = 0;
  int layers_on_stage = 0;   // over all chunks
  int layers_per_chunk = 0;
  StageHolding held;         // (micro-batch, chunk) activations held at once (from the schedule's order)
  int first_layer = -1;      // the stage's first chunk's first layer; -1 = stage · layers_per_chunk
  int has_embedding = -1;    // 1/0: the stage holds the embedding / output layer; -1: stage 0 / stage pp−1
  int has_output = -1;
  int state_replicas = 1;    // ranks per DP rank holding the same parameters (DualPipe's mirror pair: 2);
                             // ZeRO shards model states over dp · cp · state_replicas
};
// The input for `stage` under the scenario's schedule layout (sched/layout.hpp) and layer partition
// (plan/layer_partition.hpp): layers_per_chunk is the stage's largest chunk. Activations are exact
// when `held` counts layers (StageHolding::layer_frontier, as the plan compiler's holdings do);
// otherwise each held chunk counts as the largest (an upper bound where chunks differ). DualPipe: the stage holds pieces s and p−1−s (parameters 2x), the
// end stages both the embedding and the output layer, and ZeRO shards over the mirror pair's DP ranks.
StageMemoryInput stage_memory_input(const Scenario& s, int stage, const StageHolding& held);
MemoryBreakdown stage_memory(const Scenario& s, const StageMemoryInput& in);

// Parameters held by one rank of pipeline stage `stage` before ZeRO sharding (dense / expert).
struct StageParams {
  double dense = 0;
  double expert = 0;
  double adapters = 0;  // stage_trained_parameters: LoRA adapters (included in dense)
};
StageParams stage_parameters(const Scenario& s, int stage, int first_layer, int layer_count);
// The same for layers [first_layer, first_layer + layer_count) plus the embedding and/or the output
// layer (with the final norm).
StageParams stage_parameters(const Scenario& s, int first_layer, int layer_count, bool embedding, bool output);
// Fine-tuning: the trained parameters among those (gradients, optimizer states), LoRA adapters included.
StageParams stage_trained_parameters(const Scenario& s, int first_layer, int layer_count, bool embedding, bool output);

}  // namespace plansim
