#pragma once
// In-network reduction across servers (InfiniBand SHARP, NCCL's CollNet): where a fabric's switches reduce,
// and the flows of one part's aggregation tree. Used by collnet_direct and nvls_collnet.
#include <span>
#include <vector>

#include "sim/coll/flow_plan.hpp"
#include "sim/core/ids.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// Whether the fabric reduces between the servers of `hosts` (each a list of indices into `ranks`, all of
// one size): for every local index c, the route from each server's rank c to server 0's crosses at least
// one fabric switch, and every fabric switch it crosses reduces (Node::in_switch_reduction).
bool fabric_reduces_between(const Topology& topo, std::span<const GpuId> ranks,
                            const std::vector<std::vector<int>>& hosts);

// Appends, per local index c, one flow of `part` bytes per link of c's aggregation tree: the union of the
// routes between server 0's rank c and every other server's, both ways, so each tree link carries the
// part once each way (the switches add the servers' sums on the way up and multicast the total down).
// Returns the tree's latency: the slowest route from a server's rank c to server 0's.
Time append_sharp_tree_flows(const Topology& topo, std::span<const GpuId> ranks,
                             const std::vector<std::vector<int>>& hosts, Bytes part, std::vector<PlannedFlow>& out);

}  // namespace plansim
