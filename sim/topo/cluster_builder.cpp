#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "sim/core/assert.hpp"
#include "sim/core/limits.hpp"
#include "sim/topo/cluster_spec.hpp"

namespace plansim {

const char* to_string(FabricKind k) {
  switch (k) {
    case FabricKind::none: return "none";
    case FabricKind::single_switch: return "single_switch";
    case FabricKind::fat_tree: return "fat_tree";
    case FabricKind::rail_optimized: return "rail_optimized";
  }
  return "?";
}

namespace {

// One server's PCIe complex: where devices attach, honouring P2P.
struct PcieSwitch {
  NodeId up;    // device -> CPU direction (and both directions when P2P is on)
  NodeId down;  // CPU -> device direction (== up when P2P is on)
};

void attach_device(TopologyBuilder& b, const PcieSpec& p, const PcieSwitch& sw, NodeId dev) {
  b.add_link(dev, sw.up, LinkKind::pcie, p.bandwidth, p.latency);
  b.add_link(sw.down, dev, LinkKind::pcie, p.bandwidth, p.latency);
}

// Adds one server's GPUs, NVSwitch link, PCIe tree and NICs; returns its NICs in index order.
std::vector<NodeId> add_server(TopologyBuilder& b, const ClusterSpec& spec, int h, NodeId nvswitch) {
  const NodeSpec& n = spec.node;
  const PcieSpec& p = n.pcie;
  std::vector<NodeId> gpus;
  for (int i = 0; i < n.gpus; ++i) gpus.push_back(b.add_node(NodeKind::gpu, fmt::format("n{}.gpu{}", h, i), h, i));
  if (n.nvswitch)
    for (NodeId g : gpus) b.add_duplex(g, nvswitch, LinkKind::nvlink, n.nvswitch->bandwidth, n.nvswitch->latency);

  std::vector<NodeId> cpus;
  for (int c = 0; c < p.cpus; ++c) cpus.push_back(b.add_node(NodeKind::cpu, fmt::format("n{}.cpu{}", h, c), h, c));
  for (size_t c = 1; c < cpus.size(); ++c)
    b.add_duplex(cpus[c - 1], cpus[c], LinkKind::pcie, p.cpu_link_bandwidth, p.cpu_link_latency);
  const int num_switches = n.gpus / p.gpus_per_switch;
  std::vector<PcieSwitch> switches;
  for (int s = 0; s < num_switches; ++s) {
    PcieSwitch sw;
    sw.up = b.add_node(NodeKind::pcie_switch, fmt::format("n{}.pcie{}", h, s), h, s);
    sw.down = p.p2p ? sw.up : b.add_node(NodeKind::pcie_switch, fmt::format("n{}.pcie{}.down", h, s), h, s);
    const NodeId cpu = cpus[static_cast<size_t>(s * p.cpus / num_switches)];
    b.add_link(sw.up, cpu, LinkKind::pcie, p.uplink_bandwidth, p.latency);
    b.add_link(cpu, sw.down, LinkKind::pcie, p.uplink_bandwidth, p.latency);
    switches.push_back(sw);
  }
  for (size_t i = 0; i < gpus.size(); ++i)
    attach_device(b, p, switches[i / static_cast<size_t>(p.gpus_per_switch)], gpus[i]);

  std::vector<NodeId> nics;
  for (int j = 0; j < n.nics.count; ++j) {
    const NodeId nic = b.add_node(NodeKind::nic, fmt::format("n{}.nic{}", h, j), h, j);
    // On the switch of the first GPU that uses it; a NIC no GPU uses is spread over the switches.
    auto it = std::find(n.nics.affinity.begin(), n.nics.affinity.end(), j);
    const size_t gpu = it != n.nics.affinity.end() ? static_cast<size_t>(it - n.nics.affinity.begin())
                                                   : static_cast<size_t>(j * n.gpus / n.nics.count);
    attach_device(b, p, switches[gpu / static_cast<size_t>(p.gpus_per_switch)], nic);
    nics.push_back(nic);
  }
  for (size_t i = 0; i < gpus.size() && !nics.empty(); ++i)
    b.set_nic(gpus[i], nics[static_cast<size_t>(n.nics.affinity[i])]);
  return nics;
}

// Leaves, spines and cores, and the NIC <-> leaf cables.
void add_fabric(TopologyBuilder& b, const ClusterSpec& spec, const std::vector<std::vector<NodeId>>& nics) {
  const FabricSpec& f = spec.fabric;
  const NicSpec& nic = spec.node.nics;
  if (f.kind == FabricKind::none || nic.count == 0) return;
  const auto servers = static_cast<int>(nics.size());
  auto leaf_of = [&](int h, int j) {
    switch (f.kind) {
      case FabricKind::single_switch: return 0;
      case FabricKind::rail_optimized: return (h / f.leaf_down_ports) * nic.count + j;  // rail j of group
      default: return (h * nic.count + j) / f.leaf_down_ports;                           // servers packed
    }
  };
  const int num_leaves = leaf_of(servers - 1, nic.count - 1) + 1;
  std::vector<NodeId> leaves;
  for (int l = 0; l < num_leaves; ++l) leaves.push_back(b.add_node(NodeKind::leaf_switch, fmt::format("leaf{}", l), -1, -1, f.sharp));
  for (int h = 0; h < servers; ++h)
    for (int j = 0; j < nic.count; ++j)
      b.add_duplex(nics[static_cast<size_t>(h)][static_cast<size_t>(j)], leaves[static_cast<size_t>(leaf_of(h, j))],
                   nic.kind, nic.bandwidth, nic.latency);
  if (f.tiers < 2) return;

  const int per_pod = f.tiers == 3 ? f.leaves_per_pod : num_leaves;
  const int pods = (num_leaves + per_pod - 1) / per_pod;
  std::vector<NodeId> spines;
  for (int s = 0; s < pods * f.spines; ++s)
    spines.push_back(b.add_node(NodeKind::spine_switch, fmt::format("spine{}", s), -1, -1, f.sharp));
  // Leaf l's u-th uplink goes to spine (u mod spines) of its pod.
  for (int l = 0; l < num_leaves; ++l)
    for (int u = 0; u < f.leaf_up_links; ++u)
      b.add_duplex(leaves[static_cast<size_t>(l)], spines[static_cast<size_t>((l / per_pod) * f.spines + u % f.spines)],
                   nic.kind, f.leaf_up_bandwidth, f.latency);
  if (f.tiers < 3) return;
  std::vector<NodeId> cores;
  for (int c = 0; c < f.cores; ++c) cores.push_back(b.add_node(NodeKind::core_switch, fmt::format("core{}", c), -1, -1, f.sharp));
  // Spine s (index within its pod) sends its u-th uplink to core (s * up_links + u) mod cores: with the
  // default core count (spines x up_links) every core has one link to every pod.
  for (int p = 0; p < pods; ++p)
    for (int s = 0; s < f.spines; ++s)
      for (int u = 0; u < f.spine_up_links; ++u)
        b.add_duplex(spines[static_cast<size_t>(p * f.spines + s)],
                     cores[static_cast<size_t>((s * f.spine_up_links + u) % f.cores)], nic.kind, f.spine_up_bandwidth,
                     f.latency);
}

}  // namespace

ClusterSize cluster_size(const ClusterSpec& spec) {
  const NodeSpec& n = spec.node;
  const FabricSpec& f = spec.fabric;
  ClusterSize c;
  const double servers = spec.servers, g = n.gpus, nics = n.nics.count;
  const double switches = n.pcie.gpus_per_switch > 0 ? g / n.pcie.gpus_per_switch : g;
  c.gpus = servers * g;
  const double per_server_nodes = g + n.pcie.cpus + switches * (n.pcie.p2p ? 1 : 2) + nics;
  const double per_server_links = (n.nvswitch ? 2 * g : 0) + 2 * (n.pcie.cpus - 1) + 2 * switches + 2 * g + 4 * nics;
  double domains = 0;
  if (n.nvswitch) domains = std::ceil(servers / std::max(1, n.nvswitch->domain_servers));
  if (f.kind != FabricKind::none && nics > 0) {
    const double ports = std::max(1, f.leaf_down_ports);
    c.leaves = f.kind == FabricKind::single_switch    ? 1
               : f.kind == FabricKind::rail_optimized ? std::ceil(servers / ports) * nics
                                                      : std::ceil(servers * nics / ports);
    if (f.tiers >= 2) {
      const double pods = f.tiers == 3 ? std::ceil(c.leaves / std::max(1, f.leaves_per_pod)) : 1;
      c.spines = pods * f.spines;
      if (f.tiers == 3) c.cores = f.cores;
      c.links += 2 * c.leaves * f.leaf_up_links + (f.tiers == 3 ? 2 * c.spines * f.spine_up_links : 0);
    }
  }
  c.nodes = servers * per_server_nodes + domains + c.leaves + c.spines + c.cores +
            static_cast<double>(spec.extra_nodes.size());
  c.links += servers * per_server_links + 2 * static_cast<double>(spec.extra_links.size());
  return c;
}

std::string cluster_size_problem(const ClusterSpec& spec) {
  const ClusterSize c = cluster_size(spec);
  auto over = [](const char* what, double v, int64_t cap) {
    return fmt::format("this topology has {:.0f} {}, more than {}, the cap (README 'Limits')", v, what, cap);
  };
  if (c.gpus > static_cast<double>(limits::kMaxGpus)) return over("GPUs", c.gpus, limits::kMaxGpus);
  if (c.leaves > static_cast<double>(limits::kMaxSwitchesPerTier))
    return over("leaf switches", c.leaves, limits::kMaxSwitchesPerTier);
  if (c.spines > static_cast<double>(limits::kMaxSwitchesPerTier))
    return over("spine switches", c.spines, limits::kMaxSwitchesPerTier);
  if (c.nodes > static_cast<double>(limits::kMaxGraphNodes)) return over("graph nodes", c.nodes, limits::kMaxGraphNodes);
  if (c.links > static_cast<double>(limits::kMaxGraphLinks))
    return over("directed links", c.links, limits::kMaxGraphLinks);
  return {};
}

Rate host_link_rate(const NodeSpec& node) {
  if (node.host_link) return *node.host_link;
  const double sharing = std::max(1, node.pcie.gpus_per_switch);
  return Rate(std::min(node.pcie.bandwidth.value(), node.pcie.uplink_bandwidth.value() / sharing));
}

Topology build_cluster(const ClusterSpec& spec) {
  if (const std::string why = cluster_size_problem(spec); !why.empty()) throw ConfigError(spec.fabric.pos, why);
  const NodeSpec& n = spec.node;
  PLANSIM_ASSERT(n.gpus > 0 && spec.servers > 0 && n.gpus % n.pcie.gpus_per_switch == 0, "cluster spec not validated");
  PLANSIM_ASSERT(n.nics.count == 0 || n.nics.affinity.size() == static_cast<size_t>(n.gpus), "NIC affinity size");
  TopologyBuilder b(spec.name);
  b.set_gpu_spec(n.gpu);
  b.set_host_link(host_link_rate(n));
  b.set_num_hosts(spec.servers);
  b.set_load_balance(spec.fabric.load_balance);
  std::vector<std::vector<NodeId>> nics;
  NodeId nvswitch;
  for (int h = 0; h < spec.servers; ++h) {
    if (n.nvswitch && h % n.nvswitch->domain_servers == 0) {
      nvswitch = n.nvswitch->domain_servers == 1
                     ? b.add_node(NodeKind::nvswitch, fmt::format("n{}.nvswitch", h), h, -1, n.nvswitch->nvls)
                     : b.add_node(NodeKind::nvswitch, fmt::format("nvl{}.nvswitch", h / n.nvswitch->domain_servers), -1,
                                  -1, n.nvswitch->nvls);
    }
    nics.push_back(add_server(b, spec, h, nvswitch));
  }
  add_fabric(b, spec, nics);

  // Extra nodes and links, by name.
  std::unordered_map<std::string, NodeId> by_name;
  if (!spec.extra_links.empty() || !spec.extra_nodes.empty())
    for (const Node& node : b.nodes()) by_name.emplace(node.name, node.id);
  for (const ExtraNode& e : spec.extra_nodes) {
    if (by_name.count(e.name)) throw ConfigError(e.pos, fmt::format("a node named '{}' already exists", e.name));
    by_name.emplace(e.name, b.add_node(e.kind, e.name, e.host));
  }
  auto lookup = [&](const std::string& name, const SourcePos& pos) {
    auto it = by_name.find(name);
    if (it != by_name.end()) return it->second;
    std::string hint;
    if (name.find('.') != std::string::npos || name.rfind("leaf", 0) == 0 || name.rfind("spine", 0) == 0)
      hint = " (names look like n0.gpu3, n0.nic3, n0.pcie1, n0.cpu0, n0.nvswitch, leaf2, spine0, core1)";
    throw ConfigError(pos, fmt::format("no node named '{}' in this topology{}", name, hint));
  };
  for (const ExtraLink& e : spec.extra_links) {
    const NodeId a = lookup(e.a, e.pos_a), c = lookup(e.b, e.pos_b);
    if (e.duplex) b.add_duplex(a, c, e.kind, e.bandwidth, e.latency);
    else b.add_link(a, c, e.kind, e.bandwidth, e.latency);
  }

  // Every GPU must reach every other (undirected connectivity; directions are symmetric by construction):
  // union-find over the links (a node-based graph for a 16k-GPU cluster's half-million links cost more
  // than the rest of loading it).
  std::vector<uint32_t> parent(b.num_nodes());
  for (uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];  // path halving
    return x;
  };
  for (const Link& l : b.links()) parent[root(l.src.value)] = root(l.dst.value);
  auto component = [&](NodeId node) { return root(node.value); };
  const auto& gpus = b.gpu_nodes();
  for (NodeId g : gpus)
    if (component(g) != component(gpus.front()))
      throw ConfigError(spec.fabric.pos,
                        fmt::format("{} cannot reach {}: {} servers need a fabric (fabric.kind single_switch, fat_tree or "
                                    "rail_optimized, with NICs) or NVLink domains spanning them",
                                    b.nodes()[g.index()].name, b.nodes()[gpus.front().index()].name, spec.servers));
  return std::move(b).build();
}

}  // namespace plansim
