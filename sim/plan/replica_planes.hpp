#pragma once
// TP folding's network planes. A folded plan replays each non-TP transfer once per TP sibling
// (replica j = 0 .. fold−1, ranks shifted by j·fold_stride). When every replica j's flows cross the
// images of replica 0's links under one renaming of links φ_j, the renamings are one-to-one onto
// links of equal bandwidth, and no link is used by two replicas, the network splits into `fold`
// disjoint copies of one max-min system, which start the same flows at the same times: every
// replica's flows get replica 0's rates and land when replica 0's do. Then only replica 0 needs
// the flow network (the others land with it) -- symmetry where it is exact: identical groups on
// links nobody else shares. (It also needs the TP collectives off the network: the TP memo.)
//
// ReplicaPlanes builds the renamings incrementally, one pair of corresponding links at a time, and
// says no as soon as a pair contradicts what it has seen: a link of replica 0 that another replica
// uses, a replica-0 link mapped to two links, two replica-0 links mapped to one, or a bandwidth
// that differs. Since it only ever grows, checking every distinct call once suffices.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// Thrown by RunnerComm (planes mode) when a replica's call is not replica 0's under the renamings.
struct PlaneMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ReplicaPlanes {
 public:
  ReplicaPlanes(const Topology& topo, int replicas);
  // Replica j (1 .. replicas−1) uses link lj where replica 0 uses l0. False, with why() set, if that
  // contradicts a plane split; nothing is recorded then.
  bool pair(int j, LinkId l0, LinkId lj);
  [[nodiscard]] const std::string& why() const { return why_; }

 private:
  const Topology& topo_;
  std::vector<int8_t> owner_;                 // per link: the replica using it, -1 none yet
  std::vector<std::vector<uint32_t>> image_;  // [j][l0]: φ_j(l0), kNone unset
  std::string why_;
};

}  // namespace plansim
