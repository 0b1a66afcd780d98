#pragma once
// Helpers shared by the topology tests.
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "sim/topo/cluster_spec.hpp"
#include "sim/topo/gpu_catalog.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::test {

// A node template of 8 H100s on an NVSwitch, 4 PCIe switches, 8 NICs at 400 Gb/s (one per GPU).
inline ClusterSpec h100_cluster(int servers) {
  ClusterSpec s;
  s.name = "test";
  s.servers = servers;
  s.node.gpu = *find_gpu_model("H100-SXM-80GB");
  s.node.gpus = 8;
  s.node.nvswitch = NvSwitchSpec{GBps(450), Time::ns(250), true, 1};
  s.node.pcie.bandwidth = GBps(63);
  s.node.pcie.uplink_bandwidth = GBps(63);
  s.node.pcie.latency = Time::ns(500);
  s.node.pcie.gpus_per_switch = 2;
  s.node.nics.count = 8;
  s.node.nics.bandwidth = Gbps(400);
  s.node.nics.latency = Time::ns(500);
  for (int i = 0; i < 8; ++i) s.node.nics.affinity.push_back(i);
  return s;
}

// Servers of 4 H100s (one NIC each) in multi-server NVLink domains of 4 servers, on one switch.
inline ClusterSpec h100_nvl_domains(int servers) {
  ClusterSpec s = h100_cluster(servers);
  s.node.gpus = 4;
  s.node.nics.count = 4;
  s.node.nics.affinity = {0, 1, 2, 3};
  s.node.nvswitch->domain_servers = 4;
  s.fabric.kind = FabricKind::single_switch;
  return s;
}

// A 3-tier fat-tree of `servers` H100 servers: leaves of 32 NICs / 32 uplinks, pods of 16 leaves with
// 32 spines each (16 links from below, 16 up), cores = 32 x 16 = 512: non-blocking.
inline ClusterSpec h100_fat_tree3(int servers) {
  ClusterSpec s = h100_cluster(servers);
  s.fabric.kind = FabricKind::fat_tree;
  s.fabric.tiers = 3;
  s.fabric.latency = Time::ns(300);
  s.fabric.leaf_down_ports = 32;
  s.fabric.leaf_up_links = 32;
  s.fabric.leaf_up_bandwidth = Gbps(400);
  s.fabric.leaves_per_pod = 16;
  s.fabric.spines = 32;
  s.fabric.spine_up_links = 16;
  s.fabric.spine_up_bandwidth = Gbps(400);
  s.fabric.cores = 512;
  return s;
}

// Fewest hops from a to b by a plain BFS over every link (the reference the router must match).
inline int bfs_hops(const Topology& t, NodeId a, NodeId b) {
  std::vector<int> dist(t.nodes().size(), -1);
  std::deque<NodeId> q{a};
  dist[a.index()] = 0;
  while (!q.empty()) {
    NodeId v = q.front();
    q.pop_front();
    if (v == b) return dist[v.index()];
    for (LinkId l : t.out_links(v)) {
      NodeId u = t.link(l).dst;
      if (dist[u.index()] < 0) {
        dist[u.index()] = dist[v.index()] + 1;
        q.push_back(u);
      }
    }
  }
  return -1;
}

inline std::vector<std::string> route_names(const Topology& t, GpuId a, GpuId b) {
  std::vector<std::string> names{t.node(t.gpu_node(a)).name};
  for (LinkId l : t.route(a, b)) names.push_back(t.node(t.link(l).dst).name);
  return names;
}

inline bool route_visits(const Topology& t, GpuId a, GpuId b, const std::string& name) {
  for (const auto& n : route_names(t, a, b))
    if (n == name) return true;
  return false;
}

}  // namespace plansim::test
