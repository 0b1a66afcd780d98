#pragma once
// The compute-cost table a plan's compute ops index into: one entry per distinct fused op
// (attention block forward, MLP block backward input part, ...), shared by all ranks.
#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "sim/plan/finetune.hpp"
#include "sim/plan/program.hpp"

namespace plansim {

class CostTable {
 public:
  CostTable(const Scenario& s, std::vector<ComputeCost>& out);
  // Fused op of layer kind (moe or dense): block 0 = attention, 1 = MLP. Fine-tuning (finetune.hpp):
  // the forward carries the LoRA adapters, the backward what `bt` asks for (default: everything).
  uint32_t forward(int block, bool moe);
  uint32_t backward(int block, bool moe, BackwardPart part, BlockTraining bt = {});
  uint32_t attention_recompute();  // selective recompute: the attention core forward
  uint32_t embedding(bool forward);
  uint32_t logits(BackwardPart part, bool forward);
  uint32_t optimizer(double params);  // Adam step over `params` local parameters (memory-bound)
  // Entry `id` has an attention kernel (a block backward that reaches the attention core).
  [[nodiscard]] bool has_attention(uint32_t id) const;

 private:
  uint32_t add(const std::string& key, std::vector<OpCost> kernels);
  [[nodiscard]] std::vector<OpCost> block_forward(int block, bool moe) const;
  // Ids of the argument-determined entries, so that the millions of calls of a large plan cost an
  // array read instead of rebuilding the layer's kernels and a string-keyed lookup (kUnset: not yet).
  static constexpr uint32_t kUnset = ~0U;
  template <size_t N>
  static constexpr std::array<uint32_t, N> unset() {
    std::array<uint32_t, N> a{};
    a.fill(kUnset);
    return a;
  }
  std::array<uint32_t, 4> forward_ids_ = unset<4>();     // [block·2 + moe]
  std::array<uint32_t, 96> backward_ids_ = unset<96>();  // [((block·2 + moe)·3 + part)·8 + training]
  std::array<uint32_t, 2> embedding_ids_ = unset<2>();   // [forward]
  std::array<uint32_t, 4> logits_ids_ = unset<4>();      // [part], [3] = forward
  uint32_t recompute_id_ = kUnset;
  const Scenario* s_;
  Shard shard_;
  std::vector<ComputeCost>* out_;
  std::map<std::string, uint32_t> index_;
};

}  // namespace plansim
