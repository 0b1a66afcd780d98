#pragma once
// Which transformer layers each pipeline virtual stage holds. Virtual stage vs (0 .. pp·v − 1) holds
// layers [first(vs), first(vs) + count(vs)) — contiguous in model order, as Megatron assigns them.
// Either explicit (`parallel.stage_layers`, one count per virtual stage) or balanced: layers / (pp·v)
// each, and when that does not divide, the remainder goes one layer each to the virtual stages nearest
// the middle of the pipeline (the end stages also hold the embedding and the logits).
#include <cstddef>
#include <vector>

#include "sim/sched/layout.hpp"

namespace plansim {

class LayerPartition {
 public:
  // `explicit_counts` empty = balanced. Preconditions (checked by the scenario loader): explicit
  // counts number `virtual_stages`, are positive (the first and last may be 0) and sum to `layers`;
  // layers >= virtual_stages without slots.
  // `embedding_slot` / `loss_slot` (balanced only; Megatron-Core's account_for_{embedding,loss}_in_
  // pipeline_split, megatron/core/transformer/transformer_block.py get_num_layers_to_build): the
  // embedding and the loss take one layer slot each, (layers + slots) / virtual_stages per virtual
  // stage (Megatron asserts it divides), and the first / last virtual stage builds one layer fewer,
  // possibly none.
  LayerPartition(int layers, int virtual_stages, const std::vector<int>& explicit_counts = {},
                 bool embedding_slot = false, bool loss_slot = false);

  [[nodiscard]] int first(int vstage) const { return first_[static_cast<size_t>(vstage)]; }
  [[nodiscard]] int count(int vstage) const { return count_[static_cast<size_t>(vstage)]; }
  [[nodiscard]] int virtual_stages() const { return static_cast<int>(count_.size()); }
  [[nodiscard]] bool uniform() const;

 private:
  std::vector<int> first_;
  std::vector<int> count_;
};

// [stage][chunk]: how many layers the piece a stage holds as that chunk has (for the activation
// memory of stages whose chunks differ, sched/holding.hpp).
std::vector<std::vector<int>> layers_per_chunk(const PipelineLayout& lay, const LayerPartition& part);

}  // namespace plansim
