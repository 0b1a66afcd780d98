#pragma once
// The executor's CommService in `plansim run`: every transfer is a CollectiveRunner call on the
// shared flow network (send/recv as a 2-rank send_recv), so collectives whose routes share links
// contend. Algorithm "auto" (the runner's NCCL-like choice).
#include "sim/coll/collective_runner.hpp"
#include "sim/plan/executor.hpp"

namespace plansim {

class RunnerComm final : public CommService {
 public:
  explicit RunnerComm(CollectiveRunner& runner) : runner_(runner) {}
  void start(const CommRequest& request, std::function<void()> on_done) override;

 private:
  CollectiveRunner& runner_;
};

}  // namespace plansim
