#pragma once
// Transfers as flows over directed links, sharing bandwidth by max-min fairness.
//
// A flow is (links, bytes, latency, cap). `links` is a multiset: a link listed k times carries k times
// the flow's rate. That lets one flow stand for a pipelined ring or tree channel whose hops all move
// at one common rate (the rate of its bottleneck), which is how NCCL's pipelined algorithms behave,
// at the cost of one flow instead of n·steps transfers. A plain point-to-point transfer lists its
// route once. The flow first waits `latency` (route latency plus any software or per-step latency the
// caller adds), then moves its bytes at its current max-min fair rate, capped at `cap`. Rates are
// re-solved when flows start or finish; `on_done` runs (as a simulation event) when the last byte lands.
//
// Implementation: net/flow_network.cpp (flow lifecycle, one completion event), net/flow_resolve.cpp
// (exact local re-solve: only flows whose bottleneck a change can break are re-solved, checked
// against their neighbours; identical flows folded into one weighted entry), solver in net/max_min.hpp (a pure function, tested against
// closed forms and a reference). Simultaneous starts and finishes are batched into one re-solve.
#include <functional>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/core/units.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

using FlowId = Id<struct FlowTag>;
using FlowRouteId = Id<struct FlowRouteTag>;

struct LinkStats {
  Bytes bytes;     // bytes that crossed the link (counting multiplicity), credited when each flow completes
  Time busy;       // time with at least one flow moving bytes over it (latency phases excluded), up to now
};

class FlowNetwork {
 public:
  FlowNetwork(Simulation& sim, const Topology& topo);
  ~FlowNetwork();
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  static constexpr double kNoCap = std::numeric_limits<double>::infinity();

  // Starts a flow now: it waits `latency`, then moves `bytes` over `links` (a multiset) at its max-min
  // fair rate (at most `cap`); `on_done` runs as a simulation event at the time the last byte lands.
  // A zero-byte flow completes after its latency; a flow over no links completes after its latency
  // plus bytes/cap (immediately when uncapped). Every link must have a positive bandwidth; cap > 0.
  FlowId start(std::span<const LinkId> links, Bytes bytes, Time latency, std::function<void()> on_done,
               Rate cap = Rate(kNoCap));
  // The same for flows started many times over one link multiset (the collective runner's): the
  // multiset is checked and collapsed into (link, multiplicity) once, by prepare_route, so that a
  // start copies the result instead of visiting every link. Routes belong to this network.
  FlowRouteId prepare_route(std::span<const LinkId> links);
  FlowId start_prepared(FlowRouteId route, Bytes bytes, Time latency, std::function<void()> on_done,
                        Rate cap = Rate(kNoCap));
  // Flows started together that only matter together (a collective's phase): exactly what starting
  // each with start_prepared (in order) and counting its callbacks would do, including every rate and
  // finish time, but with one activation event per distinct latency instead of one per flow, and one
  // `on_done`, run as a simulation event where the last flow's own callback would have run (see
  // net/flow_batch.cpp). Returns the first flow's id; the others follow it in order. Non-empty.
  struct BatchFlow {
    FlowRouteId route;
    Bytes bytes;
    Time latency;
    Rate cap{kNoCap};
  };
  FlowId start_batch(std::span<const BatchFlow> flows, std::function<void()> on_done);
  // Latency of a route: link latencies summed (cut-through: the head of a message pays each link's
  // latency once). A store_and_forward link adds its latency once more (the hop receives the head
  // before forwarding it); whole-message serialisation per hop is not included.
  [[nodiscard]] Time route_latency(std::span<const LinkId> links) const;

  // By value: `busy` includes the interval still open at now().
  [[nodiscard]] LinkStats link_stats(LinkId l) const;
  // Flows started and not yet completed (waiting out their latency or moving bytes).
  [[nodiscard]] size_t active_flows() const;
  [[nodiscard]] uint64_t flows_started() const;
  // Max-min solves run: one per round of a local re-solve (see net/flow_resolve.cpp) and one per
  // connected component when a re-solve falls back to whole components; single-flow solves included.
  [[nodiscard]] uint64_t rate_solves() const;
  // Re-solves whose local subproblem kept growing and that solved whole components instead.
  [[nodiscard]] uint64_t rate_solve_fallbacks() const;

  // Inspection, for tests and invariant checks. A flow's current rate (zero while it waits out its
  // latency, and once it has completed), and the summed rate × multiplicity over a link.
  [[nodiscard]] Rate flow_rate(FlowId f) const;
  [[nodiscard]] Rate link_load(LinkId l) const;
  // When on, every re-solve asserts (PLANSIM_ASSERT) that no re-solved link carries more than
  // capacity·(1 + 1e-9). Completion always asserts that the flow's bytes were delivered.
  void set_check_invariants(bool on);
  // Rounds a local re-solve may take before it solves whole connected components instead (default
  // 32; 0 = always whole components, the plain method: for tests and A/B benchmarks).
  void set_local_resolve_rounds(int rounds);
  [[nodiscard]] Simulation& sim() const { return *sim_; }
  [[nodiscard]] const Topology& topology() const { return *topo_; }

 private:
  struct Impl;
  Simulation* sim_;
  const Topology* topo_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plansim
