#pragma once
// FlowNetwork's internal state, shared by flow_network.cpp (flow lifecycle: start, activation,
// completion) and flow_resolve.cpp (component search and max-min re-solve). Not a public header.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "sim/net/completion_heap.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/net/max_min.hpp"
#include "sim/net/max_min_memo.hpp"

namespace plansim {

struct FlowNetwork::Impl {
  struct Entry {  // one distinct link of a flow
    uint32_t link;
    uint32_t mult;
  };
  // A flow's distinct links: up to kInline stored in the flow itself (point-to-point routes), so the
  // component search reaches them without a second dependent cache miss; longer lists (ring
  // channels) live in the vector.
  class EntryList {
   public:
    static constexpr uint32_t kInline = 8;
    void clear() {
      size_ = 0;
      spill_.clear();
    }
    // Holds the n entries at `e` (a prepared route's, from the route pool, which keeps kInline
    // readable entries after every route's start: a fixed-size copy is a few moves, not a call).
    void assign(const Entry* e, uint32_t n) {
      size_ = n;
      if (n <= kInline) {
        std::memcpy(inline_, e, sizeof inline_);  // a constant-size copy: inlined moves
      } else {
        spill_.assign(e, e + n);
      }
    }
    void push_back(const Entry& e) {
      if (size_ < kInline) {
        inline_[size_] = e;
      } else {
        if (size_ == kInline) spill_.assign(inline_, inline_ + kInline);
        spill_.push_back(e);
      }
      ++size_;
    }
    [[nodiscard]] uint32_t size() const { return size_; }
    [[nodiscard]] bool empty() const { return size_ == 0; }
    Entry* begin() { return size_ <= kInline ? inline_ : spill_.data(); }
    Entry* end() { return begin() + size_; }
    [[nodiscard]] const Entry* begin() const { return size_ <= kInline ? inline_ : spill_.data(); }
    [[nodiscard]] const Entry* end() const { return begin() + size_; }
    Entry& operator[](size_t i) { return begin()[i]; }
    const Entry& operator[](size_t i) const { return begin()[i]; }
    Entry& back() { return begin()[size_ - 1]; }

   private:
    uint32_t size_ = 0;
    Entry inline_[kInline] = {};
    std::vector<Entry> spill_;
  };
  // A flow on a link's list. Removal is lazy: a finishing flow only clears joined_id[slot]; the
  // re-solve that follows (which visits those lists anyway) drops refs whose id no longer matches.
  struct LinkRef {
    uint32_t slot;
    uint32_t mult;   // the flow's multiplicity on this link
    uint32_t id;     // the flow's id, to tell a live ref from one left by a finished flow
  };
  // What every visit to a link reads and writes, in one 64-byte record aligned to a cache line, so
  // that touching a link costs one line (the workloads are memory-bound: a 16k-GPU run touches far
  // more links than fit in cache). The rest lives in LinkCold.
  struct alignas(64) LinkState {
    std::vector<LinkRef> flows;  // flows crossing it (+ dead refs until compacted)
    double capacity = 0;         // bytes/s
    Bytes bytes;                 // LinkStats::bytes
    uint32_t live = 0;           // live flows crossing it
    uint32_t stamp = 0;          // epoch of the last re-solve that included it
    uint32_t local = 0;          // its index in that re-solve's links
    uint32_t compacted = 0;      // epoch of its last compaction (and of its flows' examination as seeds)
    uint32_t queued = 0;         // dirty_round when it was last put on `dirty`
  };
  static_assert(sizeof(LinkState) == 64);
  // Loops over links or flows start fetching the record kAhead iterations ahead.
  static constexpr size_t kAhead = 8;
  static void prefetch(const void* p) { __builtin_prefetch(p); }
  struct LinkCold {
    uint32_t dedupe_stamp = 0;   // collapse(): multiset -> (link, multiplicity)
    uint32_t dedupe_pos = 0;
    Time busy_since;             // when live last became nonzero
    Time busy;                   // LinkStats::busy, up to busy_since
  };
  static constexpr uint32_t kNoBatch = 0xffffffffu;
  enum class State : uint8_t { free, waiting, active };
  // What re-solves touch; the callback and activation event live apart (Cold) to keep this small.
  struct Flow {
    FlowId id;
    State state = State::free;
    bool joined = false;    // in its links' flow lists (moving bytes at a solved rate)
    bool callback = false;  // its own on_done (in Cold), which the flow runs when it lands
    uint32_t batch = kNoBatch;  // the batch it belongs to (its on_done is the batch's), or kNoBatch
    EventId activation;     // while waiting out its latency (a batch member's is its group's)
    double bytes = 0;
    double remaining = 0;
    double cap = kNoCap;
    Time last;
    uint64_t key = 0;  // hash of entries (in order), for grouping identical flows
    EntryList entries;
  };
  // What a re-solve reads of every flow on the links it visits, apart from the rest of the flow
  // (Flow is ~150 bytes, this is 16: four flows to a cache line).
  struct FlowHot {
    double rate = 0;
    // What bounds its rate in the current allocation: a saturated link on which no flow is faster
    // (a LinkId value), kCapped, or kUnsolved (joined, not solved yet). See flow_resolve.cpp.
    uint32_t bottleneck = kUnsolved;
    uint32_t stamp = 0;  // epoch of the last subproblem or component search that took it
  };
  static constexpr uint32_t kUnsolved = 0xffffffffu;
  static constexpr uint32_t kCapped = 0xfffffffeu;
  // Only flows started with their own callback touch it (batch members do not: one cache miss less
  // at start and at landing for each of them).
  struct Cold {
    std::function<void()> on_done;
  };
  // FlowNetwork::start_batch: flows counted down to one callback; the members waiting out one
  // latency activate in one event (groups[g] for g < used_groups; inner vectors keep their capacity).
  struct Batch {
    uint32_t pending = 0;
    std::function<void()> on_done;
    struct Group {
      Time latency;
      EventId event;
      std::vector<uint32_t> slots;
    };
    std::vector<Group> groups;
    uint32_t used_groups = 0;
  };

  // A prepared link multiset (FlowNetwork::prepare_route), collapsed: its entries are
  // route_entries[first, first + size). Routes prepared together (a collective's) lie together,
  // 16 bytes each plus their entries, so that a batch reads them as one stream.
  struct Route {
    uint64_t key = 0;
    uint32_t first = 0;
    uint32_t size = 0;
  };

  Impl(Simulation& s, const Topology& t);
  // Known links with bandwidth, else InternalError; grows the per-link records to cover them.
  void check_route(std::span<const LinkId> links);
  // Collapses `links` into (link, multiplicity) in order of first appearance, with its key.
  void collapse(std::span<const LinkId> links, EntryList& entries, uint64_t& key);
  uint32_t new_flow(double bytes, Time latency, std::function<void()> on_done, double cap);  // slot; entries to set
  FlowId launch(uint32_t slot, Time latency);                                  // waits latency, then activates
  void activate(uint32_t slot);
  void mark_dirty(const Flow& f);
  void ensure_resolve();
  void resolve();
  void add_to_subproblem(uint32_t slot);
  bool solve_subproblem();                  // false: gave up, the caller solves whole components
  void solve_components();                  // exact fallback: every component touching comp_links
  void solve_component(uint32_t seed_link);
  void solve_flows(std::span<const double> capacity);  // comp_flows over comp_links -> rates, bottleneck
  void commit_rates();
  void group_flows();
  void set_rate(uint32_t slot, double rate);
  void set_finish(uint32_t slot);
  void on_completion();
  void finish(uint32_t slot);  // completes now: bytes delivered, leaves its links, on_done queued
  void release(uint32_t slot);
  void member_done(uint32_t slot);      // a batch member finished: counts down, queues on_done at zero
  void activate_group(uint32_t batch, uint32_t group);
  void reschedule_completion();
  void check_links(std::span<const uint32_t> links) const;
  [[nodiscard]] bool is_live(const LinkRef& r) const { return joined_id[r.slot] == r.id; }
  [[nodiscard]] double load(uint32_t link) const;  // sum of rate × multiplicity of live refs

  Simulation& sim;
  const Topology& topo;
  // By LinkId, up to the highest link a route has named (grown by check_route): a network that only
  // ever carries one server's flows (the TP memo's scratch runs) never touches the other links' pages.
  std::vector<LinkState> link_state;
  std::vector<LinkCold> link_cold;
  uint32_t dedupe_epoch = 0;
  std::vector<Flow> flows;                        // slots, reused
  std::vector<Cold> cold;                         // same slots
  std::vector<FlowHot> hot;                       // same slots
  std::vector<uint32_t> joined_id;                // same slots: id of the flow on its links, or kNone
  std::vector<uint32_t> free_slots;
  std::vector<uint32_t> id_to_slot;               // FlowId -> slot (kNone once completed)
  std::vector<Route> routes;                      // by FlowRouteId
  std::vector<Entry> route_entries;               // the routes' entries, then kInline of padding
  EntryList route_scratch;                        // prepare_route: the collapsed multiset
  std::vector<Batch> batches;                     // start_batch(), reused through free_batches
  std::vector<uint32_t> free_batches;
  CompletionHeap heap;
  std::vector<uint32_t> dirty;  // links changed since the last re-solve, each once, in order of first change
  uint32_t dirty_round = 1;     // advanced when a re-solve takes `dirty`
  EventId resolve_event;
  EventId completion_event;
  Time completion_time = Time::infinite();
  uint32_t epoch = 0;
  uint64_t started = 0;
  uint64_t solves = 0;
  uint64_t fallbacks = 0;
  size_t live = 0;
  bool check = false;
  int max_rounds = 32;  // local re-solve rounds before falling back to whole components
  // Scratch for component solves (reused).
  std::vector<uint32_t> comp_flows, comp_links;
  std::vector<uint32_t> flow_begin, entry_link;
  std::vector<double> entry_mult, flow_cap, link_cap, rates;
  std::vector<uint32_t> group_bottleneck;
  std::vector<double> outside_load, sub_load, sub_max, sub_bound_min;  // subproblem check, per comp link
  std::vector<uint32_t> sub_refs;  // subproblem: per comp link, the subproblem's flows on it
  std::vector<uint32_t> group_table, group_rep, flow_group;  // group_flows()
  std::vector<uint32_t> group_first;  // group_flows(): the index in comp_flows of each group's first flow
  // comp_flows[i]'s links as (local index in comp_links, multiplicity), for i in order:
  // comp_entry[comp_entry_begin[i], comp_entry_begin[i + 1]).
  std::vector<uint32_t> comp_entry_begin;
  std::vector<Entry> comp_entry;
  std::vector<double> group_weight;
  MaxMinSolver solver;
  MaxMinMemo memo;  // repeated re-solves answered from memory (net/max_min_memo.hpp)
};

}  // namespace plansim
