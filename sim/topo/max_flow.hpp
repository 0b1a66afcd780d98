#pragma once
// Maximum flow (Boost.Graph push-relabel) over a Topology's directed links, capacities = link bandwidths.
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// The largest total rate that `sources` can send to `sinks` at once, each link carrying at most its
// bandwidth (= the capacity of the minimum cut between the two sets). The sets must be disjoint.
Rate max_flow(const Topology& topo, const std::vector<NodeId>& sources, const std::vector<NodeId>& sinks);

}  // namespace plansim
