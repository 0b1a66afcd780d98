#include "hw/rank_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace plansim::hw {

RankRunner::RankRunner(const LaunchPlan& lp, const RankLaunches& rl, ExecBackend& backend, bool graph)
    : lp_(lp), rl_(rl), be_(backend), graph_(graph) {}

void RankRunner::setup() {
  be_.bind_thread();  // before any stream or event exists: they belong to the current device
  for (uint32_t s = 0; s < rl_.streams; ++s) streams_.push_back(be_.create_stream(s != static_cast<uint32_t>(StreamKind::compute)));
  for (size_t i = 0; i < rl_.launches.size(); ++i) {
    start_.push_back(be_.create_event(EventUse::timing));
    end_.push_back(be_.create_event(EventUse::timing));
    done_.push_back(be_.create_event(EventUse::dependency));
  }
  zero_ = be_.create_event(EventUse::timing);
  fork_ = be_.create_event(EventUse::dependency);
  for (uint32_t s = 0; s < rl_.streams; ++s) join_.push_back(be_.create_event(EventUse::dependency));
  be_.prepare(lp_, rl_);
}

void RankRunner::split() {
  be_.bind_thread();
  comms_.assign(lp_.communicators.size(), kNoComm);
  for (const auto& round : lp_.split_rounds) {
    int colour = -1, key = 0;
    uint32_t mine = 0;
    for (uint32_t c : round) {
      const auto& ranks = lp_.communicators[c].ranks;
      const auto it = std::find(ranks.begin(), ranks.end(), rl_.rank);
      if (it == ranks.end()) continue;
      colour = static_cast<int>(c);
      key = static_cast<int>(it - ranks.begin());
      mine = c;
    }
    const CommId comm = be_.split(colour, key);
    if (colour >= 0) comms_[mine] = comm;
  }
}

void RankRunner::connect() {
  be_.bind_thread();
  const StreamId s = origin();
  for (size_t c = 0; c < comms_.size(); ++c) {
    if (comms_[c] == kNoComm) continue;
    const Communicator& comm = lp_.communicators[c];
    const auto n = static_cast<int>(comm.ranks.size());
    for (const CommTouch& t : comm.touches) {
      if (t.kind == OpKind::collective) {
        be_.collective(t.comm, comms_[c], t.bytes, n, s);
      } else if (comm.ranks[0] == rl_.rank) {  // a lane: rank 0 sends, rank 1 receives
        be_.send(comms_[c], 1, t.bytes, s);
      } else {
        be_.recv(comms_[c], 0, t.bytes, s);
      }
    }
    be_.synchronize(s);
  }
}

void RankRunner::enqueue_launch(const Launch& l) {
  const StreamId st = streams_[l.stream];
  for (uint32_t w : l.waits) be_.wait(st, done_[w]);
  be_.record(start_[l.op], st);
  switch (l.kind) {
    case OpKind::compute:
      for (const KernelLaunch& k : l.kernels) be_.compute(k, st);
      break;
    case OpKind::collective: {
      const Communicator& c = lp_.communicators[l.communicator];
      // A group of one rank has no communicator: its collective moves nothing between GPUs.
      if (comms_[l.communicator] != kNoComm)
        be_.collective(l.comm, comms_[l.communicator], l.bytes, static_cast<int>(c.ranks.size()), st);
      break;
    }
    case OpKind::send: be_.send(comms_[l.communicator], 1, l.bytes, st); break;
    case OpKind::recv: be_.recv(comms_[l.communicator], 0, l.bytes, st); break;
    case OpKind::host_copy: break;  // plan_launches refuses such plans
  }
  be_.record(end_[l.op], st);
  be_.record(done_[l.op], st);
}

void RankRunner::enqueue() {
  const StreamId o = origin();
  be_.record(fork_, o);
  for (StreamId s : streams_)
    if (s != o) be_.wait(s, fork_);
  for (const Launch& l : rl_.launches) enqueue_launch(l);
  for (size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i] == o) continue;
    be_.record(join_[i], streams_[i]);
    be_.wait(o, join_[i]);
  }
}

void RankRunner::iteration() {
  be_.bind_thread();
  const StreamId o = origin();
  if (graph_ && !captured_) {
    be_.begin_capture(o);
    enqueue();
    be_.end_capture(o);
    captured_ = true;
  }
  be_.barrier(o);
  be_.record(zero_, o);
  if (graph_) be_.launch_captured(o);
  else enqueue();
  be_.synchronize(o);
}

std::vector<OpSpan> RankRunner::spans() {
  std::vector<OpSpan> out;
  out.reserve(rl_.launches.size());
  for (size_t i = 0; i < rl_.launches.size(); ++i)
    out.push_back({be_.elapsed_s(zero_, start_[i]), be_.elapsed_s(zero_, end_[i])});
  return out;
}

}  // namespace plansim::hw
