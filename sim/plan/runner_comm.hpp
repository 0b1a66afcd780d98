#pragma once
// The executor's CommService in `plansim run`: every transfer is a CollectiveRunner call on the
// shared flow network (send/recv as a 2-rank send_recv), so collectives whose routes share links
// contend. Algorithm "auto" (the runner's NCCL-like choice).
//
// A plan issues the same few calls over and over (a DP group's buckets, a stage pair's
// activations), so each distinct call is prepared once and found again by what the request says
// cheaply: (group, replica, op, bytes) for a collective of a plan group, (sender, receiver, bytes)
// for send/recv; requests naming no group are looked up by the runner from their ranks.
#include <vector>

#include "sim/coll/collective_runner.hpp"
#include "sim/plan/executor.hpp"

namespace plansim {

class RunnerComm final : public CommService {
 public:
  explicit RunnerComm(CollectiveRunner& runner) : runner_(runner) {}
  void start(const CommRequest& request, std::function<void()> on_done) override;
  // Distinct calls prepared (each once).
  [[nodiscard]] size_t prepared() const { return prepared_; }

 private:
  struct Known {
    uint32_t key;  // replica (collective) or receiver (send/recv)
    CommOp op;
    double bytes;
    PreparedCall call;
  };
  PreparedCall prepare(const CommRequest& r);

  CollectiveRunner& runner_;
  std::vector<std::vector<Known>> by_group_;   // by CommRequest::group
  std::vector<std::vector<Known>> by_sender_;  // send/recv, by the sender's GpuId
  size_t prepared_ = 0;
};

}  // namespace plansim
