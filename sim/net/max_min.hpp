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
//
// Connected components (flows sharing links, transitively) are filled one after another, each with a
// heap of its own links, and a flow that shares no link with another gets its closed form (the
// tightest of its links, or its cap) without a heap. A link's level only ever depends on the flows
// crossing it, and each component's events are taken in the same (level, link) order either way, so
// the rates and bottlenecks are bit-identical to one fill over everything (set_split(false), kept for
// tests), only cheaper: the flow network's re-solves are mostly many small independent pieces.
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
  // Whether solve() fills connected components one by one (default) or all links in one heap.
  void set_split(bool on) { split_ = on; }

 private:
  struct HeapItem {
    double level;
    uint32_t link;
    bool operator>(const HeapItem& o) const { return level != o.level ? level > o.level : link > o.link; }
  };
  void freeze(const MaxMinInstance& in, uint32_t f, double rate, uint32_t bound, std::span<double> rates,
              std::span<uint32_t> bottleneck);
  void requeue_touched();
  // Progressive filling of `nf` unfrozen flows over `links` (every link any of them crosses; the
  // flows crossing those links are exactly those), taking `caps` (sorted) as cap events.
  void fill(const MaxMinInstance& in, std::span<const uint32_t> links, std::span<const std::pair<double, uint32_t>> caps,
            size_t nf, std::span<double> rates, std::span<uint32_t> bottleneck);
  // A flow sharing its links with no other: the tightest link's level (ties: lowest link), or its cap.
  void solve_alone(const MaxMinInstance& in, uint32_t f, std::span<double> rates, std::span<uint32_t> bottleneck);
  void split_components(const MaxMinInstance& in, std::span<double> rates, std::span<uint32_t> bottleneck);
  uint32_t find(uint32_t l);
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
  bool split_ = true;
  // split_components(): union-find over links, then per component (CSR) its links and its caps.
  std::vector<uint32_t> parent_;
  std::vector<uint32_t> comp_of_;          // per root link: component id, or kNotInHeap
  std::vector<uint32_t> flow_comp_;        // per flow: component id (kNotInHeap: frozen already)
  std::vector<uint32_t> comp_flows_;       // per component: unfrozen flows; then CSR fill positions
  std::vector<uint32_t> comp_first_flow_;  // per component: its lowest flow (the only one when alone)
  std::vector<uint32_t> link_begin_c_, links_c_, cap_begin_c_;
  std::vector<std::pair<double, uint32_t>> caps_c_;
};

// Convenience form for tests and small callers.
struct MaxMinFlow {
  std::vector<std::pair<uint32_t, double>> links;  // (link index, multiplicity)
  double cap = std::numeric_limits<double>::infinity();
};
std::vector<double> max_min_rates(std::span<const double> link_capacity, std::span<const MaxMinFlow> flows);

}  // namespace plansim
