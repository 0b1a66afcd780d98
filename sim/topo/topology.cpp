#include "sim/topo/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <fmt/format.h>

#include <deque>
#include <unordered_map>

#include "sim/core/assert.hpp"

namespace plansim {

const char* to_string(NodeKind k) {
  switch (k) {
    case NodeKind::gpu: return "gpu";
    case NodeKind::nvswitch: return "nvswitch";
    case NodeKind::pcie_switch: return "pcie_switch";
    case NodeKind::cpu: return "cpu";
    case NodeKind::nic: return "nic";
    case NodeKind::leaf_switch: return "leaf";
    case NodeKind::spine_switch: return "spine";
    case NodeKind::core_switch: return "core";
    case NodeKind::other_switch: return "switch";
  }
  return "?";
}

const char* to_string(LinkKind k) {
  switch (k) {
    case LinkKind::nvlink: return "nvlink";
    case LinkKind::pcie: return "pcie";
    case LinkKind::infiniband: return "infiniband";
    case LinkKind::ethernet: return "ethernet";
    case LinkKind::other: return "other";
  }
  return "?";
}

// The graph: vertices are node indices, edges carry the directed link id.
struct Topology::Impl {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property,
                                      boost::property<boost::edge_index_t, uint32_t>>;
  Graph graph;
  std::vector<std::vector<LinkId>> out;  // out links per node, id order
  mutable std::unordered_map<uint64_t, std::vector<LinkId>> route_cache;
  // Scratch for the reverse BFS, reused across queries (touched entries are reset after each).
  mutable std::vector<int32_t> dist;
  mutable std::vector<uint32_t> touched;
};

Topology::Topology() : impl_(std::make_unique<Impl>()) {}
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

std::span<const LinkId> Topology::out_links(NodeId n) const { return impl_->out[n.index()]; }

namespace {
uint64_t mix(uint64_t x) {  // splitmix64 finaliser: a deterministic, well-spread hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

std::span<const LinkId> Topology::route(NodeId a, NodeId b) const {
  if (a == b) return {};
  const uint64_t key = (uint64_t{a.value} << 32) | b.value;
  auto& cache = impl_->route_cache;
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  // Reverse BFS from b over in-edges until a is reached: dist[v] = hops from v to b. Every node one
  // layer closer than a is labelled by then, so the forward walk below sees all equal-cost choices.
  const auto& g = impl_->graph;
  auto& dist = impl_->dist;
  auto& touched = impl_->touched;
  if (dist.size() != nodes_.size()) dist.assign(nodes_.size(), -1);
  std::deque<uint32_t> queue{b.value};
  dist[b.index()] = 0;
  touched.push_back(b.value);
  bool found = false;
  while (!queue.empty() && !found) {
    const uint32_t v = queue.front();
    queue.pop_front();
    for (auto [e, end] = boost::in_edges(v, g); e != end; ++e) {
      const auto u = static_cast<uint32_t>(boost::source(*e, g));
      if (dist[u] >= 0) continue;
      dist[u] = dist[v] + 1;
      touched.push_back(u);
      if (u == a.value) found = true;
      queue.push_back(u);
    }
  }
  if (!found) {
    for (uint32_t t : touched) dist[t] = -1;
    touched.clear();
    throw InternalError(fmt::format("topology '{}': no route from {} to {}", name_, nodes_[a.index()].name,
                                    nodes_[b.index()].name));
  }
  // Forward walk choosing among next hops that are one step closer, by a hash of (a, b, hop).
  std::vector<LinkId> path;
  NodeId cur = a;
  std::vector<LinkId> choices;
  while (cur != b) {
    choices.clear();
    for (LinkId l : impl_->out[cur.index()]) {
      const int32_t d = dist[links_[l.index()].dst.index()];
      if (d >= 0 && d == dist[cur.index()] - 1) choices.push_back(l);
    }
    PLANSIM_ASSERT(!choices.empty(), "BFS labelling left a node without a next hop");
    const LinkId pick = choices[mix(key ^ (uint64_t{static_cast<uint32_t>(path.size())} << 56)) % choices.size()];
    path.push_back(pick);
    cur = links_[pick.index()].dst;
  }
  for (uint32_t t : touched) dist[t] = -1;
  touched.clear();
  return cache.emplace(key, std::move(path)).first->second;
}

TopologyBuilder::TopologyBuilder(std::string name) { topo_.name_ = std::move(name); }

void TopologyBuilder::set_gpu_spec(GpuSpec spec) { topo_.gpu_spec_ = std::move(spec); }
void TopologyBuilder::set_num_hosts(int n) { topo_.num_hosts_ = n; }

NodeId TopologyBuilder::add_node(NodeKind kind, std::string name, int host, int local_index, bool nvls) {
  const NodeId id = NodeId::from(topo_.nodes_.size());
  topo_.nodes_.push_back(Node{id, kind, std::move(name), host, local_index, nvls});
  topo_.impl_->out.emplace_back();
  boost::add_vertex(topo_.impl_->graph);
  if (kind == NodeKind::gpu) topo_.gpus_.push_back(id);
  if (host + 1 > topo_.num_hosts_) topo_.num_hosts_ = host + 1;
  return id;
}

LinkId TopologyBuilder::add_link(NodeId src, NodeId dst, LinkKind kind, Rate bandwidth, Time latency,
                                 bool store_and_forward) {
  PLANSIM_ASSERT(src.index() < topo_.nodes_.size() && dst.index() < topo_.nodes_.size(), "link endpoint out of range");
  PLANSIM_ASSERT(bandwidth.value() > 0, "link bandwidth must be positive");
  const LinkId id = LinkId::from(topo_.links_.size());
  topo_.links_.push_back(Link{id, src, dst, kind, bandwidth, latency, store_and_forward});
  topo_.impl_->out[src.index()].push_back(id);
  boost::add_edge(src.index(), dst.index(), id.value, topo_.impl_->graph);
  return id;
}

LinkId TopologyBuilder::add_duplex(NodeId a, NodeId b, LinkKind kind, Rate bandwidth, Time latency,
                                   bool store_and_forward) {
  const LinkId fwd = add_link(a, b, kind, bandwidth, latency, store_and_forward);
  add_link(b, a, kind, bandwidth, latency, store_and_forward);
  return fwd;
}

Topology TopologyBuilder::build() && { return std::move(topo_); }

}  // namespace plansim
