#pragma once
// Network planes of a folded plan (TP siblings or DP replicas). A folded plan replays each
// replicated transfer once per replica (replica j = 0 .. fold−1, ranks shifted by j·fold_stride).
// When every replica j's flows cross the images of replica 0's links under one renaming of links
// φ_j, the renamings are one-to-one onto links of equal bandwidth, and no link is used by two
// replicas, the network splits into `fold` disjoint copies of one max-min system, which start the
// same flows at the same times: every replica's flows get replica 0's rates and land when replica
// 0's do. Then only replica 0 needs the flow network (the others land with it) -- symmetry where
// it is exact: identical groups on links nobody else shares.
//
// Transfers that span the replicas (a DP collective when DP is folded: one call naming every
// replica's members) cross the planes. Such a flow keeps the system symmetric when it loads every
// image φ_j(l) exactly as it loads l (same multiplicity), for every replica-0 link l it or its
// images cross: then the permutation of links (l -> φ_j(l), identity elsewhere) and of flows
// (replica 0's -> replica j's, spanning flows fixed) maps the whole max-min system onto itself, so
// its unique solution gives replica j's flows replica 0's rates, and the constraint of φ_j(l) is
// that of l. The flow then runs with its images of replica-0 links dropped (project()): the
// network holds replica 0's plane, the links outside every plane, and the spanning flows, which is
// the full system's max-min problem with its duplicate constraints removed.
//
// ReplicaPlanes builds the renamings incrementally, one pair of corresponding links at a time, and
// says no as soon as a pair contradicts what it has seen: a link of replica 0 that another replica
// uses, a replica-0 link mapped to two links, two replica-0 links mapped to one, a bandwidth that
// differs, or a link a spanning flow was projected over before (its projection would be stale).
// Since it only ever grows, checking every distinct call once suffices.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// Thrown by RunnerComm (planes mode) when a replica's call is not replica 0's under the renamings,
// or a spanning call does not load every plane alike.
struct PlaneMismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ReplicaPlanes {
 public:
  ReplicaPlanes(const Topology& topo, int replicas);
  // Replica j (1 .. replicas−1) uses link lj where replica 0 uses l0. False, with why() set, if that
  // contradicts a plane split; nothing is recorded then.
  bool pair(int j, LinkId l0, LinkId lj);
  // A spanning flow over `links` (a multiset): false, with why() set, unless it loads every image
  // φ_j(l) as it loads l. Else `kept` = `links` without the images (replica 0's links and those
  // outside every plane, in order), and those links may no longer join a plane.
  bool project(std::span<const LinkId> links, std::vector<LinkId>& kept);
  [[nodiscard]] int replicas() const { return replicas_; }
  [[nodiscard]] const std::string& why() const { return why_; }

 private:
  [[nodiscard]] std::string name(LinkId l) const;
  const Topology& topo_;
  int replicas_;
  std::vector<int32_t> owner_;    // per link: the replica using it, -1 none yet
  std::vector<uint32_t> slot_;    // per link of replica 0: its row in image_; per image: its replica-0 link
  std::vector<uint32_t> image_;   // row k (replica-0 link k), column j: φ_j, kUnset where unset
  std::vector<uint8_t> spanned_;  // per link: a spanning flow was projected over it
  std::vector<uint32_t> count_;   // project(): scratch multiplicities
  std::string why_;
};

}  // namespace plansim
