#pragma once
// The executor's CommService in `plansim run`: every transfer is a CollectiveRunner call on the
// shared flow network (send/recv as a 2-rank send_recv), so collectives whose routes share links
// contend. Algorithm "auto" (the runner's NCCL-like choice).
//
// A plan issues the same few calls over and over (a DP group's buckets, a stage pair's
// activations), so each distinct call is prepared once and found again by what the request says
// cheaply: (group, replica, op, bytes) for a collective of a plan group, (sender, receiver, bytes)
// for send/recv; requests naming no group are looked up by the runner from their ranks.
//
// With ReplicaPlanes (network planes of a folded plan, plan/replica_planes.hpp) the executor
// issues replica 0 of each replicated transfer only (CommRequest::copies): the first time a
// distinct call is issued, every replica's call is checked to be replica 0's on renamed links, and
// then only replica 0's runs (the others land with it). A call that spans the replicas
// (copies = 1) runs with its images of replica-0 links dropped, once checked to load every plane
// alike. A check that fails throws PlaneMismatch.
#include <string>
#include <vector>

#include "sim/coll/collective_runner.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/replica_orbits.hpp"
#include "sim/plan/replica_planes.hpp"

namespace plansim {

class RunnerComm final : public CommService {
 public:
  explicit RunnerComm(CollectiveRunner& runner, ReplicaPlanes* planes = nullptr) : runner_(runner), planes_(planes) {}
  // Orbits (plan/replica_orbits.hpp): the same with replicas that may share links; every replica's
  // call is checked against the next one's, and replica 0's runs on the quotient network.
  RunnerComm(CollectiveRunner& runner, ReplicaOrbits* orbits) : runner_(runner), orbits_(orbits) {}
  void start(const CommRequest& request, std::function<void()> on_done) override;
  // Planes: check a replicated request's copies, or project a spanning one, now (as its first
  // start() would). Checking every replicated call before projecting any spanning one means every
  // plane is known when they are projected, and a run that cannot be folded stops before it starts.
  void check_ahead(const CommRequest& request);
  // Orbits: a spanning request checked against the pairs known so far (ReplicaOrbits::precheck),
  // to give up early; throws PlaneMismatch. A no-op otherwise.
  void precheck_spanning(const CommRequest& request);
  // Distinct calls prepared (each once).
  [[nodiscard]] size_t prepared() const { return prepared_; }
  // Planes: distinct spanning calls run projected, and distinct replicated calls checked.
  [[nodiscard]] size_t projected() const { return projected_; }
  [[nodiscard]] size_t checked() const { return checked_; }

 private:
  struct Known {
    uint32_t key;  // replica (collective) or receiver (send/recv)
    CommOp op;
    double bytes;
    PreparedCall call;
    bool planned = false;  // planes: checked against its copies, or projected (then `call` is the projection)
    bool quotiented = false;  // orbits: a replicated call, `call` replaced by its quotient
  };
  PreparedCall prepare(const CommRequest& r);
  Known* find_or_prepare(const CommRequest& r, Known& scratch);
  void plan_planes(const CommRequest& r, Known& k);
  void plan_orbits(const CommRequest& r, Known& k);  // replica_orbits_comm.cpp
  void take_quotient(Known& k);
  // A spanning call (copies = 1) replaced by its projection (ReplicaPlanes or ReplicaOrbits::project);
  // throws PlaneMismatch with the replicas' why() where one flow does not project.
  template <class Replicas>
  void project_spanning(Replicas& replicas, Known& k) {
    const PreparedCall p = runner_.remap(k.call, [&replicas](std::span<const LinkId> links, std::vector<LinkId>& kept) {
      return replicas.project(links, kept);
    });
    if (!p.valid()) throw PlaneMismatch(replicas.why());
    k.call = p;
    ++projected_;
  }
  // Orbits: a spanning call on the quotient, phase by phase (ReplicaOrbits::project_phase), where a flow
  // may stand for the others of its orbit.
  void project_spanning_orbits(Known& k);
  // Why two replicas' copies of `r` (prepared as a and b) are not one call on renamed links.
  [[nodiscard]] std::string copy_differs(const CommRequest& r, PreparedCall a, PreparedCall b, uint32_t ja,
                                         uint32_t jb) const;
  // shifted_ = replica j's ranks of `r` (r.ranks shifted by j·copy_stride).
  void shift_ranks(const CommRequest& r, uint32_t j);
  // Replica j's copy of `r`, prepared.
  PreparedCall prepare_copy(const CommRequest& r, uint32_t j);
  // A replicated call whose every copy is provably `k`'s call on renamed links
  // (CollectiveRunner::renamed_send_recv_route, renamed_links): fills copy_links_ (replica j's flows'
  // links at j, in same_shape()'s order) and says true; the copies need not be prepared then.
  bool renamed_copies(const CommRequest& r, const Known& k);

  CollectiveRunner& runner_;
  ReplicaPlanes* planes_ = nullptr;
  ReplicaOrbits* orbits_ = nullptr;
  std::vector<PreparedCall> copies_;           // plan_orbits(): every replica's call
  std::vector<std::vector<Known>> by_group_;   // by CommRequest::group
  std::vector<std::vector<Known>> by_sender_;  // send/recv, by the sender's GpuId
  std::vector<GpuId> shifted_;                 // plan_planes(): a copy's ranks
  std::vector<std::vector<LinkId>> copy_links_;  // renamed_copies(): by replica
  size_t prepared_ = 0, projected_ = 0, checked_ = 0;
};

}  // namespace plansim
