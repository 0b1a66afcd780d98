#pragma once
// Small topologies for the collective tests, built directly with TopologyBuilder.
#include "sim/topo/topology.hpp"

namespace plansim::test {

// n GPUs in a directed-both-ways ring: GPU i <-> GPU i+1 (mod n), each link `bw` and `lat`.
inline Topology ring_topology(int n, Rate bw, Time lat) {
  TopologyBuilder b("ring" + std::to_string(n));
  std::vector<NodeId> g;
  for (int i = 0; i < n; ++i) g.push_back(b.add_node(NodeKind::gpu, "gpu" + std::to_string(i), 0, i));
  b.set_num_hosts(1);
  for (int i = 0; i < n && n > 1; ++i) {
    if (n == 2 && i == 1) break;
    b.add_duplex(g[static_cast<size_t>(i)], g[static_cast<size_t>((i + 1) % n)], LinkKind::nvlink, bw, lat);
  }
  return std::move(b).build();
}

// `hosts` servers of `per_host` GPUs on an NVSwitch each (nvls as given), one NIC per server to a leaf
// (reducing in the network, InfiniBand SHARP, when `sharp`).
inline Topology cluster_topology(int hosts, int per_host, bool nvls = false, Rate nvlink = GBps(450),
                                 Rate nic = GBps(50), bool sharp = false) {
  TopologyBuilder b("cluster");
  b.set_num_hosts(hosts);
  NodeId leaf = b.add_node(NodeKind::leaf_switch, "leaf", -1, -1, sharp);
  for (int h = 0; h < hosts; ++h) {
    NodeId sw = b.add_node(NodeKind::nvswitch, "nvsw" + std::to_string(h), h, -1, nvls);
    NodeId n = b.add_node(NodeKind::nic, "nic" + std::to_string(h), h, 0);
    b.add_duplex(n, leaf, LinkKind::infiniband, nic, Time::ns(500));
    b.add_duplex(sw, n, LinkKind::pcie, GBps(64), Time::ns(100));
    for (int i = 0; i < per_host; ++i) {
      NodeId g = b.add_node(NodeKind::gpu, "h" + std::to_string(h) + "g" + std::to_string(i), h, i);
      b.add_duplex(g, sw, LinkKind::nvlink, nvlink, Time::ns(200));
      b.set_nic(g, n);
    }
  }
  return std::move(b).build();
}

inline std::vector<GpuId> first_gpus(int n) {
  std::vector<GpuId> v;
  for (int i = 0; i < n; ++i) v.push_back(GpuId::from(i));
  return v;
}

}  // namespace plansim::test
