#pragma once
// A small two-tier fabric built in code for flow-network tests: 16 GPUs under 4 leaves (4 GPUs each,
// 50 GB/s, 600 ns), the leaves joined by 2 spines (100 GB/s, 300 ns).
#include <string>
#include <vector>

#include "sim/topo/topology.hpp"

namespace plansim::testing {

inline Topology small_fat_tree() {
  TopologyBuilder b("fat tree");
  std::vector<NodeId> gpu, leaf;
  for (int i = 0; i < 16; ++i) gpu.push_back(b.add_node(NodeKind::gpu, "gpu" + std::to_string(i), i / 4, i % 4));
  for (int i = 0; i < 4; ++i) leaf.push_back(b.add_node(NodeKind::leaf_switch, "leaf" + std::to_string(i)));
  NodeId spine[2] = {b.add_node(NodeKind::spine_switch, "spine0"), b.add_node(NodeKind::spine_switch, "spine1")};
  for (size_t i = 0; i < 16; ++i) b.add_duplex(gpu[i], leaf[i / 4], LinkKind::infiniband, GBps(50), Time::ns(600));
  for (NodeId s : spine)
    for (NodeId l : leaf) b.add_duplex(l, s, LinkKind::infiniband, GBps(100), Time::ns(300));
  return std::move(b).build();
}

}  // namespace plansim::testing
