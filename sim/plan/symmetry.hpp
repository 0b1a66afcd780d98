#pragma once
// Shortcuts for large plans (`plansim run --no-symmetry` turns both off).
//  * TP folding (CompileOptions::fold_tp), exact or abandoned: TP siblings run identical programs,
//    so only TP rank 0 is executed; its non-TP transfers are replayed for every sibling (see
//    executor.cpp), so the network carries exactly the unfolded run's flows. As long as every
//    replay lands at the instant the first copy does, the siblings are in lockstep and the run is
//    the unfolded run; the first time copies land apart, execute() throws FoldDivergence and
//    simulate_plan() runs every rank instead (e.g. ECMP-hashed fabrics, where siblings' routes
//    differ). Ties cannot break lockstep: compute is slowed only for its overlap with transfers.
//    Where the siblings' copies are provably the same calls on disjoint renamed links (network
//    planes, replica_planes.hpp), only TP rank 0's copies run on the network at all.
//  * TP memoisation (exact): when no two TP groups share a link and no route of any non-TP transfer touches
//    a link that TP groups use, a TP collective never contends with anything but itself (its stream issues one at a time), so its
//    time is that of the same collective run alone: computed once per (op, bytes, group shape) on a
//    scratch network with the collective runner and reused. A request that names its plan group
//    finds its shape by the group's index (computed once per group), so a hit allocates nothing.
#include <map>
#include <set>
#include <span>
#include <tuple>
#include <vector>

#include "sim/coll/nccl_model.hpp"
#include "sim/plan/executor.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// True when the links of TP groups' member-to-member routes belong to one TP group each and carry
// no other transfer of the plan
// (checked on the routes a collective can use: every member pair of TP groups; for other groups,
// member 0 to each member and consecutive members, both ways, for every TP sibling).
bool tp_links_private(const CompiledPlan& plan, const Topology& topo);

class MemoizedTpComm final : public CommService {
 public:
  // `nccl`: the NCCL parameters the run uses (its calibration's collectives; the memo must time TP
  // collectives with them, as the full run does), or the documented defaults.
  MemoizedTpComm(CommService& inner, Simulation& sim, const Topology& topo, const NcclModelParams& nccl = {})
      : inner_(inner), sim_(sim), topo_(topo), nccl_(nccl) {}
  void start(const CommRequest& request, std::function<void()> on_done) override;
  [[nodiscard]] size_t hits() const { return hits_; }
  [[nodiscard]] size_t misses() const { return cache_.size(); }

 private:
  // Group shape: each member's server relative to the first member's, and its index in the server.
  [[nodiscard]] std::vector<int> shape_of(std::span<const GpuId> ranks) const;
  [[nodiscard]] int shape_id(const CommRequest& r);
  // The memoised time of `r` (run alone on a scratch network the first time its key is seen).
  Time time_of(const CommRequest& r);
  using Key = std::tuple<int, double, int>;  // (op, bytes, shape id)
  CommService& inner_;
  Simulation& sim_;
  const Topology& topo_;
  NcclModelParams nccl_;
  std::map<std::vector<int>, int> shapes_;  // shape -> id
  std::vector<int> group_shape_;            // by CommRequest::group: shape id, -1 not yet known
  std::map<Key, Time> cache_;
  std::set<std::tuple<uint32_t, int, double>> checked_;  // (group, op, bytes) whose replicas were checked
  size_t hits_ = 0;
};

}  // namespace plansim
