#pragma once
// Where a parallel group of a plan lands on the cluster: how many servers/islands it spans and which
// link kinds its ring (rank i -> rank i+1, as NCCL's ring uses them) crosses. Rank r runs on GPU r.
#include <initializer_list>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "sim/plan/rank_mapping.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::advise {

struct GroupPlacement {
  std::vector<int> ranks;
  int hosts = 0;    // distinct servers
  int islands = 0;  // distinct NVLink domains (a server, or an NVL72 rack)
  std::set<LinkKind> links;  // kinds on the ring's routes
  [[nodiscard]] bool uses(LinkKind k) const { return links.count(k) != 0; }
  [[nodiscard]] std::string describe() const;  // "ranks 0,8,16,... on 8 servers over ethernet, pcie"
};

// The group of rank 0 varying `vary` (e.g. {Dim::tp}; DP of dense parameters is kDenseDataParallel).
GroupPlacement place_group(const Scenario& s, const Topology& topo, std::span<const Dim> vary);
inline GroupPlacement place_group(const Scenario& s, const Topology& topo, std::initializer_list<Dim> vary) {
  return place_group(s, topo, std::span<const Dim>(vary.begin(), vary.size()));
}

// GPUs in the smallest island (a server's GPUs, or an NVLink domain's).
int island_size(const Topology& topo);

// True when two GPUs of one island talk over NVLink only (no PCIe on the route).
bool island_is_nvlink(const Topology& topo);

// "[tp, cp, ep, dp, pp]" as a --set value.
std::string order_value(const std::array<Dim, 5>& order);

}  // namespace plansim::advise
