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

// `hosts` servers of `per_host` GPUs on one NVSwitch each; every GPU has its own NIC (rail-style, as a
// DGX), all NICs on one leaf. NVLink is made fast enough never to bind.
inline Topology one_nic_per_gpu(int hosts, int per_host, Rate nic) {
  TopologyBuilder b("rails");
  b.set_num_hosts(hosts);
  const NodeId leaf = b.add_node(NodeKind::leaf_switch, "leaf");
  for (int h = 0; h < hosts; ++h) {
    const NodeId sw = b.add_node(NodeKind::nvswitch, "nvsw" + std::to_string(h), h);
    for (int i = 0; i < per_host; ++i) {
      const std::string tag = std::to_string(h) + "_" + std::to_string(i);
      const NodeId g = b.add_node(NodeKind::gpu, "g" + tag, h, i);
      const NodeId n = b.add_node(NodeKind::nic, "nic" + tag, h, i);
      b.add_duplex(g, sw, LinkKind::nvlink, GBps(100000), Time::zero());
      b.add_duplex(g, n, LinkKind::pcie, GBps(100000), Time::zero());
      b.add_duplex(n, leaf, LinkKind::infiniband, nic, Time::zero());
      b.set_nic(g, n);
    }
  }
  return std::move(b).build();
}

}  // namespace plansim::test
