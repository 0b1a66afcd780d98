#include "sim/advise/placement.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/plan/rank_mapping.hpp"

namespace plansim::advise {

std::string GroupPlacement::describe() const {
  std::string list;
  for (size_t i = 0; i < ranks.size() && i < 8; ++i) list += (i ? "," : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) list += ",...";
  std::string kinds;
  for (LinkKind k : links) kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(k));
  return fmt::format("ranks {} on {} server{} over {}", list, hosts, hosts == 1 ? "" : "s",
                     kinds.empty() ? "no links" : kinds);
}

GroupPlacement place_group(const Scenario& s, const Topology& topo, std::span<const Dim> vary) {
  GroupPlacement g;
  RankMapping map(s.parallel);
  g.ranks = map.group(0, vary);
  std::set<int> hosts;
  std::set<int> islands;
  for (int r : g.ranks) {
    const GpuId gpu = GpuId::from(r);
    hosts.insert(topo.host_of(gpu));
    islands.insert(topo.island(topo.gpu_node(gpu)));
  }
  g.hosts = static_cast<int>(hosts.size());
  g.islands = static_cast<int>(islands.size());
  const size_t n = g.ranks.size();
  for (size_t i = 0; n > 1 && i < n; ++i)
    for (LinkId l : topo.route(GpuId::from(g.ranks[i]), GpuId::from(g.ranks[(i + 1) % n])))
      g.links.insert(topo.link(l).kind);
  return g;
}

int island_size(const Topology& topo) {
  std::vector<int> count(static_cast<size_t>(std::max(1, topo.num_islands())), 0);
  for (size_t i = 0; i < topo.num_gpus(); ++i) {
    const int is = topo.island(topo.gpu_node(GpuId::from(i)));
    if (is >= 0) ++count[static_cast<size_t>(is)];
  }
  // Islands none of whose GPUs the plan uses (README "Any subset of a cluster") do not count.
  int smallest = 0;
  for (int c : count)
    if (c > 0 && (smallest == 0 || c < smallest)) smallest = c;
  return smallest;
}

bool island_is_nvlink(const Topology& topo) {
  if (topo.num_gpus() < 2) return true;
  const GpuId a = GpuId::from(0);
  for (size_t i = 1; i < topo.num_gpus(); ++i) {
    const GpuId b = GpuId::from(i);
    if (topo.island(topo.gpu_node(b)) != topo.island(topo.gpu_node(a))) break;
    for (LinkId l : topo.route(a, b))
      if (topo.link(l).kind != LinkKind::nvlink) return false;
  }
  return true;
}

std::string order_value(const std::array<Dim, 5>& order) {
  std::string v = "[";
  for (size_t i = 0; i < order.size(); ++i) v += (i ? "," : "") + std::string(to_string(order[i]));
  return v + "]";
}

}  // namespace plansim::advise
