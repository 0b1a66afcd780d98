#include "sim/coll/pxn.hpp"

#include "sim/coll/flow_plan.hpp"

namespace plansim {
namespace {
long long key(int host, int nic) { return static_cast<long long>(host) * 1'000'003LL + nic; }
}  // namespace

int nic_index(const Topology& topo, GpuId g) {
  const NodeId nic = topo.node(topo.gpu_node(g)).nic;
  return nic.valid() ? topo.node(nic).local_index : -1;
}

PxnRelays::PxnRelays(const Topology& topo, std::span<const GpuId> ranks) : topo_(&topo) {
  for (GpuId r : ranks)
    if (const int i = nic_index(topo, r); i >= 0) owner_.emplace(key(topo.host_of(r), i), r);
}

GpuId PxnRelays::relay(GpuId src, GpuId dst) const {
  const int host = topo_->host_of(src), want = nic_index(*topo_, dst);
  if (topo_->island(topo_->gpu_node(src)) == topo_->island(topo_->gpu_node(dst)) || want < 0 ||
      nic_index(*topo_, src) == want)
    return src;  // inside an NVLink domain (a server, or an NVL72 rack) the send stays on NVLink
  const auto it = owner_.find(key(host, want));
  if (it == owner_.end()) return src;
  std::vector<LinkId> leg;
  append_route(*topo_, src, it->second, leg);
  for (LinkId l : leg)
    if (topo_->link(l).kind != LinkKind::nvlink) return src;  // PXN needs NVLink to the relaying GPU
  return it->second;
}

Time append_p2p_route(const Topology& topo, GpuId src, GpuId via, GpuId dst, std::vector<LinkId>& out) {
  if (via == src) {
    append_route(topo, src, dst, out);
    return route_latency(topo, src, dst);
  }
  append_route(topo, src, via, out);
  append_route(topo, via, dst, out);
  return route_latency(topo, src, via) + route_latency(topo, via, dst);
}

}  // namespace plansim
