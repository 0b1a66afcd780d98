#include "sim/topo/topology_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "sim/topo/max_flow.hpp"

namespace plansim {
namespace {

int tier_rank(NodeKind k) {  // position of a switch in the fabric hierarchy
  switch (k) {
    case NodeKind::leaf_switch: return 1;
    case NodeKind::spine_switch: return 2;
    case NodeKind::core_switch: return 3;
    case NodeKind::other_switch: return 4;
    default: return 0;
  }
}

Rate out_bandwidth(const Topology& t, NodeId n, LinkKind kind) {
  Rate r;
  for (LinkId l : t.out_links(n))
    if (t.link(l).kind == kind) r += t.link(l).bandwidth;
  return r;
}

void add_per_gpu(const Topology& t, TopologySummary& s) {
  const NodeId g0 = t.gpu_node(GpuId(0));
  if (Rate nv = out_bandwidth(t, g0, LinkKind::nvlink); nv.value() > 0)
    s.per_gpu.push_back({"nvlink", nv, "sum of the GPU's NVLink links, per direction"});
  if (Rate pc = out_bandwidth(t, g0, LinkKind::pcie); pc.value() > 0)
    s.per_gpu.push_back({"pcie", pc, "the GPU's PCIe link, per direction"});
  const NodeId nic = t.node(g0).nic;
  if (nic.valid()) {
    size_t sharing = 0;
    for (size_t g = 0; g < t.num_gpus(); ++g) sharing += t.node(t.gpu_node(GpuId::from(g))).nic == nic ? 1u : 0u;
    Rate bw;
    for (LinkId l : t.out_links(nic))
      if (tier_rank(t.node(t.link(l).dst).kind) > 0) bw += t.link(l).bandwidth;
    if (bw.value() > 0)
      s.per_gpu.push_back({"nic", bw / static_cast<double>(sharing),
                           fmt::format("GPU 0's affine NIC {} ({}) shared by {} GPU(s)", t.node(nic).name, to_string(bw), sharing)});
  }
  // Each switch tier's total upward capacity, shared by every GPU.
  for (NodeKind k : {NodeKind::leaf_switch, NodeKind::spine_switch}) {
    Rate up;
    for (const Link& l : t.links())
      if (t.node(l.src).kind == k && tier_rank(t.node(l.dst).kind) > tier_rank(k)) up += l.bandwidth;
    if (up.value() > 0)
      s.per_gpu.push_back({std::string(to_string(k)) + " uplinks", up / static_cast<double>(t.num_gpus()),
                           fmt::format("all {} uplinks ({}) / {} GPUs", to_string(k), to_string(up), t.num_gpus())});
  }
}

void add_oversubscription(const Topology& t, TopologySummary& s) {
  for (NodeKind k : {NodeKind::leaf_switch, NodeKind::spine_switch, NodeKind::core_switch}) {
    TierOversubscription o{to_string(k), 0, 0, 0};
    for (const Node& n : t.nodes()) {
      if (n.kind != k) continue;
      ++o.switches;
      Rate up, down;
      for (LinkId l : t.out_links(n.id))
        if (tier_rank(t.node(t.link(l).dst).kind) > tier_rank(k)) up += t.link(l).bandwidth;
        else down += t.link(l).bandwidth;  // to NICs or lower switches; links are duplex
      if (up.value() <= 0) continue;
      const double r = down / up;
      o.max_ratio = o.switches == 1 || o.max_ratio == 0 ? r : std::max(o.max_ratio, r);
      o.min_ratio = o.min_ratio == 0 ? r : std::min(o.min_ratio, r);
    }
    if (o.max_ratio > 0) s.oversubscription.push_back(o);
  }
}

void add_distances(const Topology& t, TopologySummary& s) {
  if (t.num_gpus() < 2) return;
  const GpuId g0(0);
  std::vector<size_t> candidates;
  const size_t per_server = t.num_gpus() / static_cast<size_t>(std::max(1, t.num_hosts()));
  for (size_t g = 1; g < t.num_gpus(); ++g)
    if (g < per_server || g % per_server <= 1) candidates.push_back(g);
  std::map<int, DistanceSample> found;
  for (size_t g : candidates) {
    const GpuId b = GpuId::from(g);
    const NodeId na = t.gpu_node(g0), nb = t.gpu_node(b);
    auto route = t.route(g0, b);
    int top = 0;
    for (LinkId l : route) top = std::max(top, tier_rank(t.node(t.link(l).dst).kind));
    int cls = top > 0 ? 1 + top : t.node(na).host == t.node(nb).host ? 0 : 1;
    if (found.count(cls)) continue;
    static const char* kNames[] = {"same server", "same NVLink domain", "same leaf", "across spine", "across pod (core)",
                                   "via other switches"};
    DistanceSample d{kNames[cls], g0, b, t.node(na).name, t.node(nb).name, static_cast<int>(route.size()), Time::zero(),
                     Rate(0)};
    for (LinkId l : route) {
      d.latency += t.link(l).latency;
      d.bottleneck = d.bottleneck.value() == 0 ? t.link(l).bandwidth : std::min(d.bottleneck, t.link(l).bandwidth);
    }
    found.emplace(cls, d);
  }
  for (auto& [cls, d] : found) s.distances.push_back(d);
}

}  // namespace

TopologySummary summarize(const Topology& t) {
  TopologySummary s;
  s.name = t.name();
  s.gpu_model = t.gpu_spec().model;
  s.gpus = t.num_gpus();
  s.servers = t.num_hosts();
  s.islands = t.num_islands();
  s.gpus_per_island = s.islands > 0 ? s.gpus / static_cast<size_t>(s.islands) : 0;
  s.nodes = t.nodes().size();
  s.links = t.links().size();
  std::map<int, size_t> counts;
  for (const Node& n : t.nodes()) ++counts[static_cast<int>(n.kind)];
  for (auto [k, c] : counts) s.node_counts.emplace_back(to_string(static_cast<NodeKind>(k)), c);
  if (s.gpus == 0) return s;
  add_per_gpu(t, s);
  add_oversubscription(t, s);
  if (s.gpus >= 2) {
    std::vector<NodeId> first, second;
    for (size_t g = 0; g < s.gpus; ++g) (g < s.gpus / 2 ? first : second).push_back(t.gpu_node(GpuId::from(g)));
    s.bisection = max_flow(t, first, second);
  }
  add_distances(t, s);
  return s;
}

}  // namespace plansim
