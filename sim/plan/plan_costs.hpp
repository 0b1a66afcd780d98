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

// A block's entries cut for TP overlap (plan/tp_overlap.hpp): the GEMM beside the collective before
// the block, the block's other kernels, the GEMM beside the collective after it. kNoEntry where absent;
// `before` absent: the block is not cut (use the whole-block entry).
struct TpSplit {
  static constexpr uint32_t kNoEntry = ~0U;
  uint32_t before = kNoEntry, rest = kNoEntry, after = kNoEntry;
  [[nodiscard]] bool split() const { return before != kNoEntry; }
};

class CostTable {
 public:
  CostTable(const Scenario& s, std::vector<ComputeCost>& out);
  // Fused op of layer kind (moe or dense): block 0 = attention, 1 = MLP. Fine-tuning (finetune.hpp):
  // the forward carries the LoRA adapters, the backward what `bt` asks for (default: everything).
  uint32_t forward(int block, bool moe);
  uint32_t backward(int block, bool moe, BackwardPart part, BlockTraining bt = {});
  // The same blocks cut for TP overlap; not cut (TpSplit{}) unless training.overlap.tp_comm with tp > 1
  // and the block has a pipelined GEMM.
  TpSplit forward_split(int block, bool moe);
  TpSplit backward_split(int block, bool moe, BackwardPart part, BlockTraining bt = {});
  uint32_t attention_recompute();  // selective recompute: the attention core forward
  // selective_op recompute (torchtitan's per-op policy): the kernels block 0/1 re-runs before its backward.
  uint32_t op_sac_recompute(int block, bool moe);
  uint32_t embedding(bool forward);
  uint32_t logits(BackwardPart part, bool forward);
  uint32_t optimizer(double params);  // Adam step over `params` local parameters (memory-bound)
  // Activation offload: one layer's saved activations, `bytes`, copied to host memory (to_host) or back.
  uint32_t host_copy(double bytes, bool to_host);
  // Entry `id` has an attention kernel (a block backward that reaches the attention core).
  [[nodiscard]] bool has_attention(uint32_t id) const;

 private:
  uint32_t add(const std::string& key, std::vector<OpCost> kernels);
  [[nodiscard]] std::vector<OpCost> block_forward(int block, bool moe) const;
  [[nodiscard]] std::vector<OpCost> block_backward(int block, bool moe, BackwardPart part, BlockTraining bt) const;
  [[nodiscard]] static int backward_slot(int block, bool moe, BackwardPart part, BlockTraining bt);
  // Entries "<name>:<kernel>" for the paired GEMMs and "<name>:rest" for the others.
  TpSplit add_split(const std::string& name, const std::vector<OpCost>& kernels, bool backward);
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
  std::array<TpSplit, 4> forward_splits_{};    // as forward_ids_ (valid where forward_split_set_)
  std::array<TpSplit, 96> backward_splits_{};  // as backward_ids_
  std::array<bool, 4> forward_split_set_{};
  std::array<bool, 96> backward_split_set_{};
  uint32_t recompute_id_ = kUnset;
  std::array<uint32_t, 4> op_sac_ids_ = unset<4>();  // as forward_ids_
  const Scenario* s_;
  Shard shard_;
  bool tp_split_ = false;  // blocks are cut for TP overlap
  std::vector<ComputeCost>* out_;
  std::map<std::string, uint32_t> index_;
};

}  // namespace plansim
