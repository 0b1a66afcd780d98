#include "sim/plan/runner_comm.hpp"

#include <fmt/format.h>

#include "sim/core/assert.hpp"

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
  if (planes_ != nullptr && !k->planned) plan_planes(r, *k);
  if (orbits_ != nullptr) {
    if (!k->planned) plan_orbits(r, *k);
    if (r.copies > 1 && !k->quotiented) take_quotient(*k);
  }
  runner_.start(k->call, std::move(on_done));
}

void RunnerComm::check_ahead(const CommRequest& r) {
  if (planes_ == nullptr && orbits_ == nullptr) return;
  Known scratch{};
  Known* k = find_or_prepare(r, scratch);
  if (!k->planned) planes_ != nullptr ? plan_planes(r, *k) : plan_orbits(r, *k);
}

// Once per distinct call: a replicated call's copies are checked to be it on renamed links; a
// spanning call is replaced by its projection onto replica 0's plane and the links outside planes.
void RunnerComm::plan_planes(const CommRequest& r, Known& k) {
  PLANSIM_ASSERT(r.replica == 0, "replica planes: only replica 0 is issued");
  if (r.copies <= 1) {
    project_spanning(*planes_, k);
  } else {
    PLANSIM_ASSERT(static_cast<int>(r.copies) == planes_->replicas(), "replica planes: copies differ from the planes");
    const bool renamed = renamed_copies(r, k);
    if (renamed) {  // what same_shape() would pair, without preparing the copies
      for (uint32_t j = 1; j < r.copies; ++j)
        for (size_t i = 0; i < copy_links_[0].size(); ++i)
          if (!planes_->pair(static_cast<int>(j), copy_links_[0][i], copy_links_[j][i])) throw PlaneMismatch(planes_->why());
    }
    for (uint32_t j = 1; j < r.copies && !renamed; ++j) {
      const PreparedCall c = prepare_copy(r, j);
      if (!runner_.same_shape(k.call, c, [&](LinkId a, LinkId b) { return planes_->pair(static_cast<int>(j), a, b); }))
        throw PlaneMismatch(planes_->why().empty() ? copy_differs(r, k.call, c, 0, j) : planes_->why());
    }
    ++checked_;
  }
  k.planned = true;
}

std::string RunnerComm::copy_differs(const CommRequest& r, PreparedCall a, PreparedCall b, uint32_t ja,
                                     uint32_t jb) const {
  const GpuId first = r.ranks.empty() ? GpuId(0) : r.ranks.front();
  return fmt::format(
      "replicas {} and {} run their copies of a {} of {} B over {} ranks (replica 0's first: rank {}) "
      "differently: {}/{} against {}/{}, or other latencies, caps or bytes",
      ja, jb, to_string(r.op), r.bytes.value(), r.ranks.size(), first.value, runner_.algorithm(a), runner_.protocol(a),
      runner_.algorithm(b), runner_.protocol(b));
}

void RunnerComm::shift_ranks(const CommRequest& r, uint32_t j) {
  shifted_.clear();
  for (GpuId g : r.ranks) shifted_.push_back(GpuId(g.value + j * r.copy_stride));
}

PreparedCall RunnerComm::prepare_copy(const CommRequest& r, uint32_t j) {
  shift_ranks(r, j);
  CommRequest copy = r;
  copy.ranks = shifted_;
  copy.replica = j;
  return prepare(copy);  // not kept in by_group_: replica 0's Known lives there
}

bool RunnerComm::renamed_copies(const CommRequest& r, const Known& k) {
  copy_links_.resize(r.copies);
  const bool send_recv = r.op == CommOp::send_recv && r.ranks.size() == 2;
  for (uint32_t j = 0; j < r.copies; ++j) {
    shift_ranks(r, j);
    if (send_recv) {
      const auto route = runner_.renamed_send_recv_route(k.call, shifted_[0], shifted_[1]);
      if (!route) return false;
      copy_links_[j].assign(route->begin(), route->end());
    } else if (!runner_.renamed_links(k.call, shifted_, copy_links_[j])) {
      return false;
    }
  }
  return true;
}

}  // namespace plansim
