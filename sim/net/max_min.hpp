#pragma once
// Max-min fair rates by progressive filling (water-filling), as a pure function.
//
// Input: link capacities and flows; each flow is a list of (link, multiplicity) and an optional rate
// cap. A flow with rate r crossing link l with multiplicity k consumes k·r of l's capacity; a flow may
// also carry a weight w (w identical flows folded into one entry: it then consumes w·k·r, and every
// one of the w flows gets rate r). Output: each flow's rate.
//
// Algorithm: all unfrozen flows rise together at one level λ. Link l saturates when
// λ = R_l / W_l, where R_l is its capacity minus what frozen flows consume and W_l is the summed
// weight·multiplicity of its unfrozen flows; a capped flow freezes when λ reaches its cap. The next
// event is the smallest of those, found with an indexed min-heap of link levels (a link's level never
// decreases as flows freeze) and a sorted list of caps, so a solve costs O(E log E) for E
// (flow, link) incidences. Ties are broken by link index, so results are deterministic.
// A flow crossing no link gets its cap (infinity when uncapped).
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace plansim {

// A solver instance in compressed form (CSR): flow f's incidences are
// [flow_begin[f], flow_begin[f + 1]) in entry_link (a link index) and entry_mult (its multiplicity).
struct MaxMinInstance {
  std::span<const double> link_capacity;   // per link, > 0
  std::span<const uint32_t> flow_begin;    // size = flows + 1
  std::span<const uint32_t> entry_link;    // per incidence: link index (< link_capacity.size())
  std::span<const double> entry_mult;      // per incidence: multiplicity (> 0)
  std::span<const double> flow_cap;        // per flow: rate cap (infinity = none)
  std::span<const double> flow_weight;     // per flow: how many identical flows it stands for; empty = all 1
  [[nodiscard]] size_t num_flows() const { return flow_begin.empty() ? 0 : flow_begin.size() - 1; }
};

// Reusable solver: keeps its scratch buffers between calls (the flow network solves many small
// components per simulated second, so allocation would dominate).
class MaxMinSolver {
 public:
  // What froze a flow: the link that saturated at its level, or its own cap (kCapBound; also for a
  // flow crossing no link).
  static constexpr uint32_t kCapBound = 0xffffffffu;
  // Writes each flow's rate into `rates` (size = instance.num_flows()) and, when `bottleneck` is not
  // empty (same size), the link (an index into link_capacity) or kCapBound that bounds it.
  void solve(const MaxMinInstance& in, std::span<double> rates, std::span<uint32_t> bottleneck = {});

 private:
  struct HeapItem {
    double level;
    uint32_t link;
    bool operator>(const HeapItem& o) const { return level != o.level ? level > o.level : link > o.link; }
  };
  void freeze(const MaxMinInstance& in, uint32_t f, double rate, uint32_t bound, std::span<double> rates,
              std::span<uint32_t> bottleneck);
  void requeue_touched();
  // Indexed min-heap of links by (level, link): one entry per link with unfrozen flows, updated in
  // place when its level changes (a lazy heap piled up stale entries and spent most of the solve
  // popping them). Pops the same (level, link) sequence, so rates are bit-identical.
  void heap_set(uint32_t l, double level);
  void heap_remove(uint32_t l);
  void heap_sift_up(size_t i);
  void heap_sift_down(size_t i);
  void heap_place(size_t i, HeapItem item);

  std::vector<double> remaining_;        // R_l
  std::vector<double> weight_;           // W_l
  std::vector<uint32_t> link_begin_;     // transpose CSR: link -> incidences
  std::vector<uint32_t> link_flow_;
  std::vector<uint8_t> frozen_;
  std::vector<uint8_t> touched_flag_;
  std::vector<uint32_t> touched_;
  size_t unfrozen_ = 0;
  std::vector<std::pair<double, uint32_t>> caps_;
  std::vector<HeapItem> heap_;            // min-heap by (level, link)
  std::vector<uint32_t> heap_pos_;        // per link: index in heap_, or kNotInHeap
  static constexpr uint32_t kNotInHeap = 0xffffffffu;
};

// Convenience form for tests and small callers.
struct MaxMinFlow {
  std::vector<std::pair<uint32_t, double>> links;  // (link index, multiplicity)
  double cap = std::numeric_limits<double>::infinity();
};
std::vector<double> max_min_rates(std::span<const double> link_capacity, std::span<const MaxMinFlow> flows);

}  // namespace plansim
