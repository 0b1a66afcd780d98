#pragma once
// Fine-tuning (training.finetune, plan/finetune_spec.hpp): which weights a plan trains and what that
// changes in its backward pass.
//
// Backward of a frozen weight's GEMM: no weight-gradient GEMM; its data-gradient GEMM only where some
// trained weight lies below it (the gradient must pass down to it). So a layer below the lowest trained
// weight has no backward at all, and in the lowest trained layer the ops before the first trained GEMM
// have none (LoRA on QKV: layer 0's QKV data gradient and input norm backward are skipped).
//
// LoRA adapters: beside a target GEMM Y = X·W (X: t×k, W: k×n) the adapter adds (X·A)·B, A: k×r,
// B: r×n (Hu et al. 2021, eq. 3): forward two GEMMs t×k×r and t×r×n; backward B's data gradient
// (needed for A's weight gradient) and both weight gradients; A's data gradient only where the
// target's input needs a gradient. Under TP the adapters take the target's local shard shape
// (k or n split): A·B of a column-parallel target is sharded like it; a row-parallel target's adapter
// input is the split X, its output a partial sum reduced with the target's (no extra collective).
#include <vector>

#include "sim/model/transformer.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim {

// What the backward of one block (0 = attention, 1 = MLP/MoE, or the output layer) must produce.
struct BlockTraining {
  bool base = true;        // the block's own weights are trained: weight-gradient GEMMs
  bool adapters = false;   // LoRA adapters on the block's target GEMMs
  bool input_grad = true;  // something below is trained: the gradient of the block's input is needed
  [[nodiscard]] bool trains() const { return base || adapters; }
  [[nodiscard]] bool has_backward() const { return base || adapters || input_grad; }
  [[nodiscard]] int index() const { return (base ? 1 : 0) + (adapters ? 2 : 0) + (input_grad ? 4 : 0); }
};

bool embedding_trained(const Scenario& s);
bool output_trained(const Scenario& s);  // output layer and final norm
bool layer_base_trained(const Scenario& s, int layer);
// Some weight below layer `layer` (the embedding, layers < layer) is trained; layer == model.layers:
// below the output layer.
bool gradient_enters(const Scenario& s, int layer);
BlockTraining block_training(const Scenario& s, int layer, int block);
BlockTraining output_training(const Scenario& s);
// GEMM `which` of layer `layer` has a weight gradient (its base weight or its adapter is trained), so
// backward needs its input kept.
bool gemm_trained(const Scenario& s, int layer, LoraTarget which);
// Layer `layer` has any backward op (and so keeps activations, gathers ZeRO-3 weights in backward).
bool layer_has_backward(const Scenario& s, int layer);

// The forward ops of block `block` with the adapters (LoRA) inserted after their target GEMMs,
// named "<target>_lora_a" / "<target>_lora_b".
std::vector<OpCost> with_adapters(const std::vector<OpCost>& ops, const FinetuneSpec& f, int block, double elem);
// Backward of a block's forward ops (adapters included) under `bt`: backward_of's ops, less the weight
// gradients of frozen GEMMs and the data gradients nothing below needs.
std::vector<OpCost> finetune_backward(const std::vector<OpCost>& fwd, const BlockTraining& bt, BackwardPart part);

// LoRA adapter parameters of one layer on one rank (tensor-parallel degree `tp`): r·(k + n) per target.
double adapter_params(const ModelSpec& m, const FinetuneSpec& f, int layer, int tp);

// Trained parameters of the whole model (LoRA: the adapters; unsharded): what DP reduces each step.
double trained_parameters(const Scenario& s);

// Model FLOPs of one iteration as the fine-tuning plan does them (forward with adapters, the
// backward finetune_backward keeps); equals model_flops_per_iteration for method full.
double finetune_model_flops(const Scenario& s);

}  // namespace plansim
