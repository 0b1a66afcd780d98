#include "sim/plan/runner_comm.hpp"

namespace plansim {

PreparedCall RunnerComm::prepare(const CommRequest& r) {
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
  return runner_.prepare(call);
}

void RunnerComm::start(const CommRequest& r, std::function<void()> on_done) {
  std::vector<Known>* known = nullptr;
  uint32_t key = 0;
  if (r.group != kNoGroup) {
    if (r.group >= by_group_.size()) by_group_.resize(r.group + 1);
    known = &by_group_[r.group];
    key = r.replica;
  } else if (r.op == CommOp::send_recv && r.ranks.size() == 2) {
    const uint32_t src = r.ranks[0].value;
    if (src >= by_sender_.size()) by_sender_.resize(src + 1);
    known = &by_sender_[src];
    key = r.ranks[1].value;
  }
  if (known == nullptr) {  // nothing cheap names it: the runner looks it up by its ranks
    runner_.start(prepare(r), std::move(on_done));
    return;
  }
  for (const Known& k : *known)
    if (k.key == key && k.op == r.op && k.bytes == r.bytes.value()) {
      runner_.start(k.call, std::move(on_done));
      return;
    }
  const PreparedCall call = prepare(r);
  ++prepared_;
  known->push_back(Known{key, r.op, r.bytes.value(), call});
  runner_.start(call, std::move(on_done));
}

}  // namespace plansim
