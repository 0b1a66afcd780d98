#include "sim/plan/runner_comm.hpp"

namespace plansim {

void RunnerComm::start(const CommRequest& r, std::function<void()> on_done) {
  CollectiveCall call;
  switch (r.op) {
    case CommOp::all_reduce: call.op = CollOp::all_reduce; break;
    case CommOp::all_gather: call.op = CollOp::all_gather; break;
    case CommOp::reduce_scatter: call.op = CollOp::reduce_scatter; break;
    case CommOp::all_to_all: call.op = CollOp::all_to_all; break;
    case CommOp::send_recv: call.op = CollOp::send_recv; break;
  }
  call.ranks.assign(r.ranks.begin(), r.ranks.end());
  call.bytes = r.bytes;
  runner_.start(call, [done = std::move(on_done)](const CollectiveResult&) { done(); });
}

}  // namespace plansim
