#pragma once
// What a pipeline stage's order keeps alive, for the activation memory model (model/memory.hpp).
// A (micro-batch, chunk) holds its full activations from the start of its F until its B; when the
// schedule splits backward, it then holds only what its weight-gradient pass W still reads (the
// weight GEMMs' inputs and output gradients) until W ends. A B `with_weight` frees everything.
//
// A stage's counts change only with its own ops, which run one after another in order, so they
// are a function of the order alone (no timing needed). The stage's activation peak for per-chunk
// sizes `full` and `after_b` is max over its states of awaiting_b·full + awaiting_w·after_b — the
// peak of the weighted sum, not the sum of the two counts' peaks. Only the non-dominated states
// (the Pareto frontier) are kept: for any sizes ≥ 0 the maximum is attained on one of them. A
// paired F (DualPipe's F&B) counts before the B it runs with frees anything (conservative).
#include <vector>

#include "sim/sched/schedule.hpp"

namespace plansim {

struct HeldChunks {
  int awaiting_b = 0;  // (micro-batch, chunk) pairs between F start and B end: full activations
  int awaiting_w = 0;  // pairs between B end and W end: the weight-gradient share
  friend bool operator==(const HeldChunks&, const HeldChunks&) = default;
};

struct StageHolding {
  std::vector<HeldChunks> frontier;  // non-dominated states, in order of decreasing awaiting_b
  // The same states counted in layers (each pair weighs its chunk's layer count), when the stage's
  // chunks were given sizes (stage_holdings' chunk_layers); empty otherwise. What activation memory
  // needs where a stage's chunks differ (e.g. 3- and 4-layer pieces), exactly.
  std::vector<HeldChunks> layer_frontier;

  // A stage whose order keeps at most `chunks` pairs, all with full activations (no B/W split).
  static StageHolding full(int chunks) { return StageHolding{{HeldChunks{chunks, 0}}, {}}; }
  // Most pairs holding any activations at once (F start to last backward end).
  [[nodiscard]] int peak_chunks() const;
  // Most pairs holding full activations at once (F start to B end).
  [[nodiscard]] int peak_awaiting_b() const;
  // The state maximising awaiting_b·full + awaiting_w·after_b (the first such, ties to more full).
  [[nodiscard]] HeldChunks peak_state(double full, double after_b) const;
  [[nodiscard]] double peak(double full, double after_b) const;
  // Adds a state the stage passes through (drops it if dominated; drops those it dominates).
  void add(HeldChunks h);
  // The peak of full·awaiting_b + after_b·awaiting_w over layer_frontier (per-layer sizes).
  [[nodiscard]] double layer_peak(double full, double after_b) const;
};

// Per stage: what the order keeps (see above). `split_backward` as the schedule's. With
// `chunk_layers` ([stage][chunk]: layers of the piece), also each stage's layer_frontier.
std::vector<StageHolding> stage_holdings(const StageOrders& orders, bool split_backward,
                                         const std::vector<std::vector<int>>* chunk_layers = nullptr);

}  // namespace plansim
