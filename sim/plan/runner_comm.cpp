#include "sim/plan/runner_comm.hpp"

#include "sim/core/assert.hpp"
#include "sim/core/free_slots.hpp"

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

// The request's prepared call, from the cheap tables when the request names its group or is a
// send/recv; otherwise `scratch`, filled by the runner's own lookup.
RunnerComm::Known* RunnerComm::find_or_prepare(const CommRequest& r, Known& scratch) {
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
    scratch = Known{0, r.op, r.bytes.value(), prepare(r)};
    return &scratch;
  }
  for (Known& k : *known)
    if (k.key == key && k.op == r.op && k.bytes == r.bytes.value()) return &k;
  ++prepared_;
  return &known->emplace_back(Known{key, r.op, r.bytes.value(), prepare(r)});
}

void RunnerComm::start(const CommRequest& r, std::function<void()> on_done) {
  Known scratch{};
  Known* k = find_or_prepare(r, scratch);
  if (planes_ == nullptr) {
    runner_.start(k->call, std::move(on_done));
    return;
  }
  start_planes(r, *k, std::move(on_done));
}

void RunnerComm::start_planes(const CommRequest& r, Known& k, std::function<void()> on_done) {
  if (r.replica == 0) {
    const uint32_t l = take_free_slot(free_landings_, [this] {
      landings_.emplace_back();
      return static_cast<uint32_t>(landings_.size() - 1);
    });
    landings_[l].callbacks.push_back(std::move(on_done));
    current_landing_ = l;
    current_call_ = k.call;
    runner_.start(k.call, [this, l] { land(l); });
    return;
  }
  PLANSIM_ASSERT(current_landing_ != ~0U, "replica planes: a replica issued before its replica 0");
  if (k.checked_with != current_call_.index) {
    const int j = static_cast<int>(r.replica);
    if (!runner_.same_shape(current_call_, k.call, [&](LinkId a, LinkId b) { return planes_->pair(j, a, b); }))
      throw PlaneMismatch(planes_->why().empty()
                              ? "a TP sibling's copy of a transfer runs another algorithm or moves other bytes"
                              : planes_->why());
    k.checked_with = current_call_.index;
  }
  landings_[current_landing_].callbacks.push_back(std::move(on_done));
}

void RunnerComm::land(uint32_t l) {
  std::vector<std::function<void()>> callbacks = std::move(landings_[l].callbacks);
  landings_[l].callbacks.clear();
  free_landings_.push_back(l);
  for (auto& cb : callbacks) cb();
}

}  // namespace plansim
