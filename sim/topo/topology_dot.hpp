#pragma once
// Graphviz DOT for a topology. Small graphs (<= max_full_nodes) are drawn node by node, one edge per
// duplex pair labelled with its bandwidth. Larger ones are collapsed: each server (or NVLink domain)
// becomes one box, parallel links between two boxes/switches one edge labelled "count x bandwidth",
// at most `max_islands` servers and `max_per_tier` switches per tier are drawn, and the graph label
// says what was left out.
#include <string>

#include "sim/topo/topology.hpp"

namespace plansim {

struct DotOptions {
  size_t max_full_nodes = 300;
  int max_islands = 16;
  int max_per_tier = 32;
};

std::string to_dot(const Topology& topo, const DotOptions& options = {});

}  // namespace plansim
