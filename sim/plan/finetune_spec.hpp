#pragma once
// What a fine-tuning run trains (scenario key `training.finetune`; README "Fine-tuning"). Plain data;
// what it changes in the plan (gradient GEMMs, adapters, memory, DP traffic) is sim/plan/finetune.hpp.
//   full:           every weight trained (pretraining too; the default)
//   lora:           every base weight frozen; low-rank adapters A (k×r), B (r×n) beside each `targets`
//                   GEMM (k×n) of every layer are trained (Hu et al. 2021, "LoRA", Sec. 4)
//   frozen_layers:  the embedding and the first `frozen_layers` transformer layers frozen, the rest
//                   (later layers, final norm, output layer) trained
#include <cstdint>

namespace plansim {

enum class FinetuneMethod { full, lora, frozen_layers };

// The GEMMs of a layer a LoRA adapter can sit beside: the fused QKV projection, the attention
// output projection, the MLP's up (fc1, gate and up fused for SwiGLU) and down (fc2) projections.
enum class LoraTarget : uint8_t { qkv = 1, proj = 2, fc1 = 4, fc2 = 8 };

struct FinetuneSpec {
  FinetuneMethod method = FinetuneMethod::full;
  int rank = 8;          // LoRA rank r
  double alpha = 16;     // LoRA scaling α (no effect on cost; kept so real configs load)
  uint8_t targets = static_cast<uint8_t>(LoraTarget::qkv);  // bit set of LoraTarget
  int frozen_layers = 0;
  bool declared = false;  // the scenario names training.finetune (lint: a fine-tuning job, not pretraining)
  [[nodiscard]] bool targets_has(LoraTarget t) const { return (targets & static_cast<uint8_t>(t)) != 0; }
  [[nodiscard]] bool is_full() const { return method == FinetuneMethod::full; }
};

const char* to_string(FinetuneMethod m);
const char* to_string(LoraTarget t);

}  // namespace plansim
