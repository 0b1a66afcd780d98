#include "sim/plan/layer_partition.hpp"

#include <algorithm>
#include <functional>
#include <cstdlib>
#include <numeric>

#include "sim/core/assert.hpp"

namespace plansim {

LayerPartition::LayerPartition(int layers, int virtual_stages, const std::vector<int>& explicit_counts,
                               bool embedding_slot, bool loss_slot) {
  const int slots = (embedding_slot ? 1 : 0) + (loss_slot ? 1 : 0);
  PLANSIM_ASSERT(virtual_stages > 0 && layers + slots >= virtual_stages, "fewer layers than virtual pipeline stages");
  const auto n = static_cast<size_t>(virtual_stages);
  if (!explicit_counts.empty()) {
    PLANSIM_ASSERT(explicit_counts.size() == n, "stage_layers must list one count per virtual stage");
    count_ = explicit_counts;
  } else if (slots > 0) {
    // Megatron-Core: (layers + slots) / (pp·v) per virtual stage, one fewer where a slot sits.
    PLANSIM_ASSERT((layers + slots) % virtual_stages == 0,
                   "layers plus the embedding/loss slots must divide over the virtual stages");
    count_.assign(n, (layers + slots) / virtual_stages);
    if (embedding_slot) --count_.front();
    if (loss_slot) --count_.back();
  } else {
    count_.assign(n, layers / virtual_stages);
    // Remainder: one extra layer each for the virtual stages nearest the middle (ties: lower index).
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    const int twice_mid = virtual_stages - 1;  // 2 · (n − 1) / 2, kept integral
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return std::abs(2 * a - twice_mid) < std::abs(2 * b - twice_mid); });
    for (int i = 0; i < layers % virtual_stages; ++i) ++count_[static_cast<size_t>(order[static_cast<size_t>(i)])];
  }
  first_.resize(n);
  int next = 0;
  for (size_t i = 0; i < n; ++i) {
    // Only the first and last pieces, which also hold the embedding / the loss, may be empty.
    PLANSIM_ASSERT(count_[i] > 0 || (count_[i] == 0 && (i == 0 || i + 1 == n)),
                   "every virtual stage but the first and last needs at least one layer");
    first_[i] = next;
    next += count_[i];
  }
  PLANSIM_ASSERT(next == layers, "stage layer counts must sum to the model's layers");
}

bool LayerPartition::uniform() const {
  return std::adjacent_find(count_.begin(), count_.end(), std::not_equal_to<>()) == count_.end();
}

std::vector<std::vector<int>> layers_per_chunk(const PipelineLayout& lay, const LayerPartition& part) {
  std::vector<std::vector<int>> out(static_cast<size_t>(lay.stages()));
  for (int st = 0; st < lay.stages(); ++st)
    for (int c = 0; c < lay.chunks(); ++c) out[static_cast<size_t>(st)].push_back(part.count(lay.piece(st, c)));
  return out;
}

}  // namespace plansim
