#include "sim/sched/holding.hpp"

#include <algorithm>

#include "sim/core/assert.hpp"

namespace plansim {

int StageHolding::peak_chunks() const {
  int n = 0;
  for (const HeldChunks& h : frontier) n = std::max(n, h.awaiting_b + h.awaiting_w);
  return n;
}

int StageHolding::peak_awaiting_b() const {
  return frontier.empty() ? 0 : frontier.front().awaiting_b;
}

HeldChunks StageHolding::peak_state(double full, double after_b) const {
  HeldChunks best;
  double most = -1;
  for (const HeldChunks& h : frontier) {
    const double v = full * h.awaiting_b + after_b * h.awaiting_w;
    if (v > most) most = v, best = h;
  }
  return best;
}

double StageHolding::peak(double full, double after_b) const {
  const HeldChunks h = peak_state(full, after_b);
  return full * h.awaiting_b + after_b * h.awaiting_w;
}

namespace {
// Adds h to a Pareto frontier kept in order of decreasing awaiting_b.
void add_to_frontier(std::vector<HeldChunks>& frontier, HeldChunks h) {
  for (const HeldChunks& k : frontier)
    if (k.awaiting_b >= h.awaiting_b && k.awaiting_w >= h.awaiting_w) return;
  std::erase_if(frontier,
                [&](const HeldChunks& k) { return h.awaiting_b >= k.awaiting_b && h.awaiting_w >= k.awaiting_w; });
  frontier.insert(std::find_if(frontier.begin(), frontier.end(),
                               [&](const HeldChunks& k) { return k.awaiting_b < h.awaiting_b; }),
                  h);
}
}  // namespace

void StageHolding::add(HeldChunks h) { add_to_frontier(frontier, h); }

double StageHolding::layer_peak(double full, double after_b) const {
  double most = 0;
  for (const HeldChunks& h : layer_frontier) most = std::max(most, full * h.awaiting_b + after_b * h.awaiting_w);
  return most;
}

std::vector<StageHolding> stage_holdings(const StageOrders& orders, bool split,
                                         const std::vector<std::vector<int>>* chunk_layers) {
  std::vector<StageHolding> out(orders.size());
  for (size_t s = 0; s < orders.size(); ++s) {
    HeldChunks now, layers;  // pairs, and the same weighted by their chunks' layers
    StageHolding& st = out[s];
    auto weight = [&](int chunk) { return chunk_layers ? (*chunk_layers)[s][static_cast<size_t>(chunk)] : 1; };
    auto record = [&] {
      st.add(now);
      if (chunk_layers) add_to_frontier(st.layer_frontier, layers);
    };
    record();
    for (const SchedOp& op : orders[s]) {
      const int w = weight(op.chunk);
      if (op.phase == Phase::F) {
        ++now.awaiting_b;
        layers.awaiting_b += w;
        record();
      } else if (op.phase == Phase::B) {
        --now.awaiting_b;
        layers.awaiting_b -= w;
        if (split && !op.with_weight) {
          ++now.awaiting_w;
          layers.awaiting_w += w;
          record();
        }
      } else {
        --now.awaiting_w;
        layers.awaiting_w -= w;
      }
      PLANSIM_ASSERT(now.awaiting_b >= 0 && now.awaiting_w >= 0, "a backward before its forward");
    }
    PLANSIM_ASSERT(now == HeldChunks{}, "a stage's order leaves activations held");
  }
  return out;
}

}  // namespace plansim
