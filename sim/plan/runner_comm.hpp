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
// With ReplicaPlanes (TP folding's network planes, plan/replica_planes.hpp), only replica 0 of a
// transfer runs on the network; replicas 1.. (which the executor issues right after it) are checked
// once per distinct call to be replica 0's call on renamed links, and land when replica 0 lands.
// A check that fails throws PlaneMismatch.
#include <vector>

#include "sim/coll/collective_runner.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/replica_planes.hpp"

namespace plansim {

class RunnerComm final : public CommService {
 public:
  explicit RunnerComm(CollectiveRunner& runner, ReplicaPlanes* planes = nullptr) : runner_(runner), planes_(planes) {}
  void start(const CommRequest& request, std::function<void()> on_done) override;
  // Distinct calls prepared (each once).
  [[nodiscard]] size_t prepared() const { return prepared_; }

 private:
  struct Known {
    uint32_t key;  // replica (collective) or receiver (send/recv)
    CommOp op;
    double bytes;
    PreparedCall call;
    uint32_t checked_with = ~0U;  // planes: the replica-0 call this one was checked against
  };
  // Replica 0 of the transfer being issued, and the callbacks of every replica that lands with it.
  struct Landing {
    std::vector<std::function<void()>> callbacks;
  };
  PreparedCall prepare(const CommRequest& r);
  Known* find_or_prepare(const CommRequest& r, Known& scratch);
  void start_planes(const CommRequest& r, Known& k, std::function<void()> on_done);
  void land(uint32_t landing);

  CollectiveRunner& runner_;
  ReplicaPlanes* planes_;
  std::vector<Landing> landings_;
  std::vector<uint32_t> free_landings_;
  uint32_t current_landing_ = ~0U;
  PreparedCall current_call_;
  std::vector<std::vector<Known>> by_group_;   // by CommRequest::group
  std::vector<std::vector<Known>> by_sender_;  // send/recv, by the sender's GpuId
  size_t prepared_ = 0;
};

}  // namespace plansim
