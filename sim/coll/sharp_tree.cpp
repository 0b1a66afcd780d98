#include "sim/coll/sharp_tree.hpp"

#include <algorithm>
#include <unordered_set>

namespace plansim {
namespace {

bool is_fabric_switch(NodeKind k) {
  return k == NodeKind::leaf_switch || k == NodeKind::spine_switch || k == NodeKind::core_switch ||
         k == NodeKind::other_switch;
}

GpuId rank_gpu(std::span<const GpuId> ranks, const std::vector<std::vector<int>>& hosts, size_t h, size_t c) {
  return ranks[static_cast<size_t>(hosts[h][c])];
}

}  // namespace

bool fabric_reduces_between(const Topology& topo, std::span<const GpuId> ranks,
                            const std::vector<std::vector<int>>& hosts) {
  if (hosts.size() < 2) return false;
  for (size_t c = 0; c < hosts.front().size(); ++c) {
    const NodeId root = topo.gpu_node(rank_gpu(ranks, hosts, 0, c));
    for (size_t h = 1; h < hosts.size(); ++h) {
      bool crossed = false;
      for (LinkId l : topo.route(topo.gpu_node(rank_gpu(ranks, hosts, h, c)), root)) {
        const Node& n = topo.node(topo.link(l).dst);
        if (!is_fabric_switch(n.kind)) continue;
        if (!n.in_switch_reduction) return false;
        crossed = true;
      }
      if (!crossed) return false;
    }
  }
  return true;
}

Time append_sharp_tree_flows(const Topology& topo, std::span<const GpuId> ranks,
                             const std::vector<std::vector<int>>& hosts, Bytes part, std::vector<PlannedFlow>& out) {
  Time tree = Time::zero();
  std::vector<LinkId> links;
  std::unordered_set<uint32_t> seen;
  for (size_t c = 0; c < hosts.front().size(); ++c) {
    links.clear();
    seen.clear();
    const GpuId root = rank_gpu(ranks, hosts, 0, c);
    for (size_t h = 1; h < hosts.size(); ++h) {
      const GpuId head = rank_gpu(ranks, hosts, h, c);
      append_route(topo, head, root, links);
      append_route(topo, root, head, links);
      tree = std::max(tree, route_latency(topo, head, root));
    }
    for (LinkId l : links) {
      if (!seen.insert(l.value).second) continue;
      PlannedFlow f;
      f.links = {l};
      f.bytes = part;
      out.push_back(std::move(f));
    }
  }
  return tree;
}

}  // namespace plansim
