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
// Implementation: net/flow_network.cpp (incremental re-solve over the affected flows), solver in
// net/max_min.hpp (a pure function, tested against closed forms and a reference).
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/core/units.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

using FlowId = Id<struct FlowTag>;

struct LinkStats {
  Bytes bytes;     // bytes that crossed the link (counting multiplicity)
  Time busy;       // time with at least one flow crossing it
};

class FlowNetwork {
 public:
  FlowNetwork(Simulation& sim, const Topology& topo);
  ~FlowNetwork();
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  static constexpr double kNoCap = std::numeric_limits<double>::infinity();

  FlowId start(std::span<const LinkId> links, Bytes bytes, Time latency, std::function<void()> on_done,
               Rate cap = Rate(kNoCap));
  // Latency of a route: link latencies summed (cut-through), store-and-forward hops as documented
  // in flow_network.cpp.
  [[nodiscard]] Time route_latency(std::span<const LinkId> links) const;

  [[nodiscard]] const LinkStats& link_stats(LinkId l) const;
  [[nodiscard]] size_t active_flows() const;
  [[nodiscard]] uint64_t flows_started() const;
  [[nodiscard]] uint64_t rate_solves() const;
  [[nodiscard]] Simulation& sim() const { return *sim_; }
  [[nodiscard]] const Topology& topology() const { return *topo_; }

 private:
  struct Impl;
  Simulation* sim_;
  const Topology* topo_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plansim
