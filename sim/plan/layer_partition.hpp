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
  // counts number `virtual_stages`, are positive and sum to `layers`; layers >= virtual_stages.
  LayerPartition(int layers, int virtual_stages, const std::vector<int>& explicit_counts = {});

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
