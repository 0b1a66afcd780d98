#pragma once
// An immutable cluster graph: nodes (GPUs, switches, NICs, CPUs) and directed links with a
// bandwidth per direction and a latency. Built by TopologyBuilder (programmatically, or from YAML
// by io/topology_yaml). route() answers shortest paths with a deterministic ECMP choice, cached.
// Routing is hierarchical (see router.hpp): inside a server or NVLink domain ("island") traffic stays
// on NVLink/PCIe; between islands a GPU uses its affine NIC, then the fewest fabric hops.
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim {

enum class NodeKind { gpu, nvswitch, pcie_switch, cpu, nic, leaf_switch, spine_switch, core_switch, other_switch };
enum class LinkKind { nvlink, pcie, infiniband, ethernet, other };
// How a fabric spreads traffic over equal-cost paths (router.hpp): by_link_kind: InfiniBand by
// destination, Ethernet by flow hash; destination: every fabric by destination (D-mod-K); flow_hash:
// every fabric by a hash of (source, destination) (ECMP).
enum class LoadBalance { by_link_kind, destination, flow_hash };
const char* to_string(NodeKind k);
const char* to_string(LinkKind k);

struct Node {
  NodeId id;
  NodeKind kind = NodeKind::other_switch;
  std::string name;
  int host = -1;          // server index for nodes inside a server; -1 for fabric switches
  int local_index = -1;   // GPU/NIC index inside its server; -1 otherwise
  // Reduces in the switch: an NVSwitch with NVLink SHARP (NVLS), a fabric switch with InfiniBand SHARP
  // (NCCL's CollNet).
  bool in_switch_reduction = false;
  NodeId nic;             // GPUs: the NIC its inter-server traffic leaves through (invalid: the nearest NIC)
};

struct Link {
  LinkId id;
  NodeId src;
  NodeId dst;
  LinkKind kind = LinkKind::other;
  Rate bandwidth;                   // per direction
  Time latency;                     // one-way, paid once per route (cut-through) unless store_and_forward
  bool store_and_forward = false;   // latency + serialisation paid at this hop
};

class Topology {
 public:
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<Link>& links() const { return links_; }
  [[nodiscard]] const Node& node(NodeId id) const { return nodes_[id.index()]; }
  [[nodiscard]] const Link& link(LinkId id) const { return links_[id.index()]; }

  [[nodiscard]] size_t num_gpus() const { return gpus_.size(); }
  [[nodiscard]] NodeId gpu_node(GpuId g) const { return gpus_[g.index()]; }
  [[nodiscard]] int num_hosts() const { return num_hosts_; }
  [[nodiscard]] int host_of(GpuId g) const { return node(gpu_node(g)).host; }
  [[nodiscard]] const GpuSpec& gpu_spec() const { return gpu_spec_; }  // one GPU model per cluster
  // Per GPU, per direction: the rate a GPU copies to or from host memory while every GPU of its server
  // does the same (activation offload, TrainingSpec::activation_offload_layers): `node.host_link` where
  // the topology states it (Grace's NVLink-C2C), else the PCIe path's share (cluster_spec.hpp host_link_rate).
  [[nodiscard]] Rate host_link_bandwidth() const { return host_link_; }

  // A plan on some of the GPUs (README "Any subset of a cluster"): GPU i of the result is GPU `gpus[i]`
  // of this topology. The others stay in the graph (links, routes and islands unchanged) but carry no
  // number. `gpus` must be distinct GPUs of this topology (the loader validates the user's list).
  [[nodiscard]] Topology with_gpus(const std::vector<GpuId>& gpus) &&;
  // GPU g's number in the whole topology (g itself unless with_gpus chose some) and the whole count.
  [[nodiscard]] GpuId topology_gpu(GpuId g) const { return chosen_.empty() ? g : chosen_[g.index()]; }
  [[nodiscard]] size_t topology_gpus() const { return chosen_.empty() ? gpus_.size() : all_gpus_; }

  // The path from a to b as directed link ids; empty when a == b. Inside one island: fewest hops. Across
  // islands: a -> a's affine NIC (else its nearest NIC), fewest fabric hops, b's NIC -> b. Among equal-cost
  // fabric hops the choice follows load_balance(): by destination (D-mod-K) or a deterministic hash of
  // (a, b, hop) like ECMP. Cached.
  // Throws ConfigError-free InternalError if b is unreachable. Not thread-safe (one Topology per thread).
  [[nodiscard]] std::span<const LinkId> route(NodeId a, NodeId b) const;
  [[nodiscard]] std::span<const LinkId> route(GpuId a, GpuId b) const { return route(gpu_node(a), gpu_node(b)); }
  // route(a, b) without storing it in the cache (a check that reads each route once, tp_links_private,
  // would fill it with routes nothing asks for again): the cached span, or one into `scratch`.
  [[nodiscard]] std::span<const LinkId> route_uncached(GpuId a, GpuId b, std::vector<LinkId>& scratch) const;
  // For GPUs a and b of different islands whose route crosses the fabric: `out` = the links of
  // route(a, b) inside islands (a -> its port, then b's port -> b), found without walking the fabric;
  // every other link of the route has a fabric switch at one end. False (`out` unspecified) when the
  // route is not of that form: call route(). Not cached; cheap (the end segments are).
  bool route_island_links(GpuId a, GpuId b, std::vector<LinkId>& out) const;

  // Links leaving a node, in id order.
  [[nodiscard]] std::span<const LinkId> out_links(NodeId n) const;
  // The island of a node: a server, or several servers joined by NVLink/PCIe (an NVLink domain such
  // as GB200 NVL72), numbered in node order; -1 for fabric switches.
  [[nodiscard]] int island(NodeId n) const;
  [[nodiscard]] int num_islands() const;
  // GPUs per island when the islands are runs of as many GPUs in GPU order, the last possibly shorter
  // (a DGX: 8; NVL72 racks: 72, or 64 placed on 16 trays), else GPUs per server (0 without servers):
  // the unit a hierarchical MoE dispatcher crosses the fabric by.
  [[nodiscard]] int gpus_per_island() const;
  [[nodiscard]] LoadBalance load_balance() const { return load_balance_; }

 private:
  friend class TopologyBuilder;
  Topology();
  struct Impl;
  std::string name_;
  std::vector<Node> nodes_;
  std::vector<Link> links_;
  std::vector<NodeId> gpus_;
  std::vector<GpuId> chosen_;  // with_gpus: the whole topology's numbers of gpus_ (empty: all GPUs, in order)
  size_t all_gpus_ = 0;        // with_gpus: the whole topology's GPU count
  int num_hosts_ = 0;
  LoadBalance load_balance_ = LoadBalance::by_link_kind;
  GpuSpec gpu_spec_;
  Rate host_link_;
  std::unique_ptr<Impl> impl_;
};

class TopologyBuilder {
 public:
  explicit TopologyBuilder(std::string name);
  void set_gpu_spec(GpuSpec spec);
  void set_host_link(Rate per_gpu);
  void set_num_hosts(int n);
  void set_load_balance(LoadBalance lb);
  NodeId add_node(NodeKind kind, std::string name, int host = -1, int local_index = -1,
                  bool in_switch_reduction = false);
  // Adds one directed link.
  LinkId add_link(NodeId src, NodeId dst, LinkKind kind, Rate bandwidth, Time latency, bool store_and_forward = false);
  // GPU `gpu` sends its inter-server traffic through `nic` (GPU<->NIC affinity).
  void set_nic(NodeId gpu, NodeId nic);
  // Adds both directions (same bandwidth each way); returns the forward id (reverse = forward + 1).
  LinkId add_duplex(NodeId a, NodeId b, LinkKind kind, Rate bandwidth, Time latency, bool store_and_forward = false);
  // What has been added so far (for builders that look nodes up by name).
  [[nodiscard]] size_t num_nodes() const { return topo_.nodes_.size(); }
  [[nodiscard]] const std::vector<Node>& nodes() const { return topo_.nodes_; }
  [[nodiscard]] const std::vector<Link>& links() const { return topo_.links_; }
  [[nodiscard]] const std::vector<NodeId>& gpu_nodes() const { return topo_.gpus_; }
  // GPUs are numbered in the order they were added.
  Topology build() &&;

 private:
  Topology topo_;
};

}  // namespace plansim
