#pragma once
// A cluster described by parameters (what a topology YAML says), and build_cluster() which turns it
// into a Topology graph. io/topology_yaml.cpp fills and validates a ClusterSpec; build_cluster only
// asserts what the reader checked, except names in `extra` links (checked here, with their positions).
//
// Graph model (node names in brackets):
//  * GPUs [n3.gpu5], Node::host = server index, GpuId order host-major.
//  * NVSwitch: the switch complex is ONE node per server [n3.nvswitch] (or per NVLink domain of several
//    servers [nvl0.nvswitch], e.g. GB200 NVL72), with one duplex NVLink link per GPU at the GPU's full
//    per-direction NVLink bandwidth. A GPU-to-GPU transfer crosses 2 links; the switch is non-blocking.
//  * PCIe: CPUs/root complexes [n3.cpu0] (chained by socket links when more than one), PCIe switches
//    [n3.pcie1] each holding `gpus_per_switch` GPUs and the NICs affine to them. With P2P disabled the
//    switch cannot forward peer traffic: it is split into an upward node [n3.pcie1] (device -> CPU) and a
//    downward node [n3.pcie1.down] (CPU -> device), so GPU->GPU and GPU->NIC traffic bounces off the CPU.
//  * NICs [n3.nic5] on the PCIe switch of their affine GPUs; GPU i uses NIC affinity[i].
//  * Fabric: leaves [leaf2], spines [spine0], cores [core7]; NIC<->leaf links at the NIC's rate.
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/gpu_spec.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

struct NvSwitchSpec {
  Rate bandwidth;          // per GPU, per direction
  Time latency;            // GPU <-> switch link, one way
  bool nvls = false;       // in-switch reduction (NVLink SHARP)
  int domain_servers = 1;  // servers sharing one NVSwitch complex (GB200 NVL72: 18 trays)
};

struct PcieSpec {
  Rate bandwidth;          // per device link, per direction (from generation x lanes unless given)
  Time latency;            // per PCIe link, one way
  int gpus_per_switch = 1;
  int cpus = 1;            // root complexes / sockets; PCIe switch s hangs off CPU s*cpus/switches
  bool p2p = true;         // false: peer traffic goes through the CPU (consumer GPUs)
  Rate uplink_bandwidth;   // PCIe switch <-> CPU
  Rate cpu_link_bandwidth; // CPU <-> CPU (socket interconnect), used when cpus > 1
  Time cpu_link_latency;
};

struct NicSpec {
  int count = 0;           // per server
  LinkKind kind = LinkKind::infiniband;
  Rate bandwidth;          // per NIC, per direction
  Time latency;            // NIC <-> leaf link, one way
  std::vector<int> affinity;  // NIC index per GPU (size = GPUs per server)
};

struct NodeSpec {
  GpuSpec gpu;
  int gpus = 0;
  std::optional<NvSwitchSpec> nvswitch;
  PcieSpec pcie;
  NicSpec nics;
  // `node.host_link`: each GPU's own link to host memory, per direction, where it is not the PCIe tree
  // (Grace Hopper / Grace Blackwell: NVLink-C2C, 450 GB/s per direction). Not a graph link: only host
  // copies (activation offload) use it, and nothing else routes through the CPU there.
  std::optional<Rate> host_link;
};

// Per GPU, per direction, the rate of a copy between a GPU and host memory when all of a server's GPUs
// copy at once: node.host_link if set, else min(the GPU's PCIe link, the switch's uplink to the CPU /
// the GPUs on that switch) (a DGX H100's PCIe Gen5 switch carries 2 GPUs: 63 / 2 GB/s each).
Rate host_link_rate(const NodeSpec& node);

enum class FabricKind { none, single_switch, fat_tree, rail_optimized };
const char* to_string(FabricKind k);

struct FabricSpec {
  FabricKind kind = FabricKind::none;
  int tiers = 1;              // 1: leaves only (single switch), 2: leaf-spine, 3: leaf-spine-core
  Time latency;               // switch <-> switch link, one way
  int leaf_down_ports = 0;    // NIC ports per leaf (rail_optimized: servers per rail group)
  int leaf_up_links = 0;
  Rate leaf_up_bandwidth;
  int spines = 0;             // 2 tiers: in all; 3 tiers: per pod
  int leaves_per_pod = 0;     // 3 tiers
  int spine_up_links = 0;     // 3 tiers
  Rate spine_up_bandwidth;
  int cores = 0;              // 3 tiers
  LoadBalance load_balance = LoadBalance::by_link_kind;  // equal-cost path choice (topology.hpp)
  bool sharp = false;         // the switches reduce in the network (InfiniBand SHARP: NCCL's CollNet)
  SourcePos pos;              // for connectivity errors
};

struct ExtraNode {
  std::string name;
  NodeKind kind = NodeKind::other_switch;
  int host = -1;
  SourcePos pos;
};

struct ExtraLink {
  std::string a, b;
  SourcePos pos_a, pos_b;
  LinkKind kind = LinkKind::other;
  Rate bandwidth;
  Time latency;
  bool duplex = true;
};

struct ClusterSpec {
  std::string name;
  int servers = 1;
  NodeSpec node;
  FabricSpec fabric;
  std::vector<ExtraNode> extra_nodes;
  std::vector<ExtraLink> extra_links;
};

// Nodes and directed links build_cluster would create, counted in doubles (no overflow whatever the
// counts), and the reason the graph is over the caps (limits.hpp: GPUs, switches per tier, graph nodes
// and links), or "" when it is within them.
struct ClusterSize {
  double gpus = 0, leaves = 0, spines = 0, cores = 0, nodes = 0, links = 0;
};
ClusterSize cluster_size(const ClusterSpec& spec);
std::string cluster_size_problem(const ClusterSpec& spec);

// Builds the graph. Throws ConfigError for an extra link naming an unknown node, when some GPU cannot
// reach another (e.g. several servers with no fabric), and when the graph would be over the caps
// (cluster_size_problem, checked before anything is allocated).
Topology build_cluster(const ClusterSpec& spec);

}  // namespace plansim
