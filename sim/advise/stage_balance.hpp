#pragma once
// Pipeline stage balance for lint's unbalanced-stages rule: what each layer, the embedding and the
// logits cost (the compute model's time for one micro-batch's forward + backward, recompute
// included), and the contiguous layer partition (`parallel.stage_layers`) that evens the pieces out.
#include <vector>

#include "sim/plan/scenario.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim::advise {

struct LayerWork {
  std::vector<double> layer_s;  // per layer, seconds
  double embedding_s = 0;       // on the first piece
  double logits_s = 0;          // output layer + loss, on the last piece
};
LayerWork estimate_layer_work(const Scenario& s, const GpuSpec& gpu);

// Work of each piece under `counts` layers per piece (first piece + embedding, last + logits).
std::vector<double> piece_work(const LayerWork& w, const std::vector<int>& counts);

// Layers per piece (each >= 1, summing to the layers) minimising the heaviest piece's work; among
// those, the most even (smallest sum of squares). Exact dynamic programme over the cut points.
std::vector<int> balanced_partition(const LayerWork& w, int pieces);

}  // namespace plansim::advise
