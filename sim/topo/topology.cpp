#include "sim/topo/topology.hpp"

#include <fmt/format.h>

#include "sim/core/assert.hpp"
#include "sim/topo/route_cache.hpp"
#include "sim/topo/router.hpp"

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

struct Topology::Impl {
  std::vector<std::vector<LinkId>> out;  // out links per node, id order
  std::unique_ptr<detail::Router> router;  // built by TopologyBuilder::build()
  mutable detail::RouteCache route_cache;
  mutable std::vector<LinkId> route_scratch;  // route(): the router's answer before the cache stores it
};

Topology::Topology() : impl_(std::make_unique<Impl>()) {}
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;
Topology::~Topology() = default;

std::span<const LinkId> Topology::out_links(NodeId n) const { return impl_->out[n.index()]; }
int Topology::island(NodeId n) const { return impl_->router->island(n); }
int Topology::num_islands() const { return impl_->router->num_islands(); }

int Topology::gpus_per_island() const {
  // The first island's GPUs, if the islands are runs of that many GPUs in GPU order (the last may be
  // shorter: a job packed on NVL72 racks ends in part of one); else GPUs per server.
  const size_t n = gpus_.size();
  size_t per = 0;
  while (per < n && island(gpus_[per]) == island(gpus_[0])) ++per;
  bool runs = per > 0;
  for (size_t g = per; g < n && runs; ++g) {
    const int here = island(gpus_[g]);
    runs = g % per == 0 ? here != island(gpus_[g - 1]) : here == island(gpus_[g - 1]);
  }
  if (runs) return static_cast<int>(per);
  return num_hosts_ > 0 ? static_cast<int>(n / static_cast<size_t>(num_hosts_)) : 0;
}

std::span<const LinkId> Topology::route(NodeId a, NodeId b) const {
  if (a == b) return {};
  const uint64_t key = (uint64_t{a.value} << 32) | b.value;
  auto& cache = impl_->route_cache;
  if (const auto* hit = cache.find(key)) return *hit;
  if (!impl_->router->route_into(a, b, impl_->route_scratch))
    throw InternalError(fmt::format("topology '{}': no route from {} to {}", name_, nodes_[a.index()].name,
                                    nodes_[b.index()].name));
  return cache.insert(key, impl_->route_scratch);
}

std::span<const LinkId> Topology::route_uncached(GpuId a, GpuId b, std::vector<LinkId>& scratch) const {
  const NodeId na = gpu_node(a), nb = gpu_node(b);
  if (na == nb) return {};
  if (const auto* hit = impl_->route_cache.find((uint64_t{na.value} << 32) | nb.value)) return *hit;
  if (!impl_->router->route_into(na, nb, scratch))
    throw InternalError(fmt::format("topology '{}': no route from {} to {}", name_, nodes_[na.index()].name,
                                    nodes_[nb.index()].name));
  return scratch;
}

bool Topology::route_island_links(GpuId a, GpuId b, std::vector<LinkId>& out) const {
  return impl_->router->island_parts(gpu_node(a), gpu_node(b), out);
}

Topology Topology::with_gpus(const std::vector<GpuId>& gpus) && {
  std::vector<bool> seen(gpus_.size(), false);
  std::vector<NodeId> nodes;
  std::vector<GpuId> whole;
  for (GpuId g : gpus) {
    PLANSIM_ASSERT(g.index() < gpus_.size() && !seen[g.index()], "with_gpus: GPUs must be distinct GPUs of the topology");
    seen[g.index()] = true;
    nodes.push_back(gpus_[g.index()]);
    whole.push_back(topology_gpu(g));
  }
  all_gpus_ = topology_gpus();
  gpus_ = std::move(nodes);
  chosen_ = std::move(whole);
  return std::move(*this);
}

TopologyBuilder::TopologyBuilder(std::string name) { topo_.name_ = std::move(name); }

void TopologyBuilder::set_gpu_spec(GpuSpec spec) { topo_.gpu_spec_ = std::move(spec); }
void TopologyBuilder::set_host_link(Rate per_gpu) { topo_.host_link_ = per_gpu; }
void TopologyBuilder::set_num_hosts(int n) { topo_.num_hosts_ = n; }

NodeId TopologyBuilder::add_node(NodeKind kind, std::string name, int host, int local_index, bool in_switch_reduction) {
  const NodeId id = NodeId::from(topo_.nodes_.size());
  topo_.nodes_.push_back(Node{id, kind, std::move(name), host, local_index, in_switch_reduction, NodeId{}});
  topo_.impl_->out.emplace_back();
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
  return id;
}

LinkId TopologyBuilder::add_duplex(NodeId a, NodeId b, LinkKind kind, Rate bandwidth, Time latency,
                                   bool store_and_forward) {
  const LinkId fwd = add_link(a, b, kind, bandwidth, latency, store_and_forward);
  add_link(b, a, kind, bandwidth, latency, store_and_forward);
  return fwd;
}

void TopologyBuilder::set_nic(NodeId gpu, NodeId nic) {
  PLANSIM_ASSERT(topo_.nodes_[gpu.index()].kind == NodeKind::gpu && topo_.nodes_[nic.index()].kind == NodeKind::nic,
                 "set_nic takes a GPU and a NIC");
  topo_.nodes_[gpu.index()].nic = nic;
}

void TopologyBuilder::set_load_balance(LoadBalance lb) { topo_.load_balance_ = lb; }

Topology TopologyBuilder::build() && {
  topo_.impl_->router =
      std::make_unique<detail::Router>(topo_.nodes_, topo_.links_, topo_.impl_->out, topo_.load_balance_);
  return std::move(topo_);
}

}  // namespace plansim
