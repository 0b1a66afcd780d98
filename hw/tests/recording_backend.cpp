#include "recording_backend.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace plansim::hw::testing {
namespace {

thread_local int current_device = 0;  // CUDA's runtime: device 0 until cudaSetDevice on this thread

const char* name(CallKind k) {
  switch (k) {
    case CallKind::record: return "record";
    case CallKind::wait: return "wait";
    case CallKind::compute: return "compute";
    case CallKind::collective: return "collective";
    case CallKind::send: return "send";
    case CallKind::recv: return "recv";
    case CallKind::barrier: return "barrier";
    case CallKind::begin_capture: return "begin_capture";
    case CallKind::end_capture: return "end_capture";
    case CallKind::launch_captured: return "launch_captured";
    case CallKind::synchronize: return "synchronize";
  }
  return "?";
}

}  // namespace

void RecordingBackend::bind_thread() { current_device = device_; }

StreamId RecordingBackend::create_stream(bool high_priority) {
  streams_.push_back({current_device, high_priority});
  return static_cast<StreamId>(streams_.size() - 1);
}

EventId RecordingBackend::create_event(EventUse use) {
  events_.push_back({current_device, use, 0});
  return static_cast<EventId>(events_.size() - 1);
}

CommId RecordingBackend::split(int colour, int key) {
  const int call = splits_++;
  if (colour < 0) return kNoComm;
  auto [it, fresh] = world_.by_split.emplace(std::pair{call, colour}, static_cast<CommId>(world_.comms.size()));
  if (fresh) world_.comms.emplace_back();
  world_.comms[it->second].members.push_back({key, rank_, current_device});
  return it->second;
}

void RecordingBackend::check_stream(StreamId s) const {
  if (s >= streams_.size()) throw std::runtime_error(fmt::format("rank {}: unknown stream {}", rank_, s));
  if (streams_[s].device != current_device)
    throw std::runtime_error(fmt::format("rank {}: enqueue on a stream of device {} while device {} is current", rank_,
                                         streams_[s].device, current_device));
}

void RecordingBackend::record(EventId e, StreamId s) {
  check_stream(s);
  // cudaEventRecord fails (cudaErrorInvalidResourceHandle) for an event of another device.
  if (events_.at(e).device != streams_[s].device)
    throw std::runtime_error(fmt::format("rank {}: cudaEventRecord of an event created on device {} on a stream of "
                                         "device {}",
                                         rank_, events_[e].device, streams_[s].device));
  ++events_[e].records;
  (capturing_ ? captured_ : calls_).push_back({CallKind::record, s, e});
}

void RecordingBackend::wait(StreamId s, EventId e) {
  check_stream(s);
  if (events_.at(e).use != EventUse::dependency)
    throw std::runtime_error(fmt::format("rank {}: a stream waits on a timing event", rank_));
  (capturing_ ? captured_ : calls_).push_back({CallKind::wait, s, e});
}

void RecordingBackend::compute(const KernelLaunch& k, StreamId s) {
  check_stream(s);
  if (!prepared_) throw std::runtime_error("compute before prepare");
  Call c{CallKind::compute, s};
  c.bytes = k.flops() > 0 ? k.flops() : k.bytes;
  (capturing_ ? captured_ : calls_).push_back(c);
}

void RecordingBackend::collective(CommOp op, CommId comm, double bytes, int nranks, StreamId s) {
  check_stream(s);
  if (comm >= world_.comms.size()) throw std::runtime_error(fmt::format("rank {}: collective on no communicator", rank_));
  if (static_cast<size_t>(nranks) != world_.comms[comm].members.size())
    throw std::runtime_error(fmt::format("rank {}: collective over {} ranks on a communicator of {}", rank_, nranks,
                                         world_.comms[comm].members.size()));
  Call c{CallKind::collective, s};
  c.comm = comm;
  c.op = op;
  c.bytes = bytes;
  (capturing_ ? captured_ : calls_).push_back(c);
}

void RecordingBackend::send(CommId comm, int peer, double bytes, StreamId s) {
  check_stream(s);
  Call c{CallKind::send, s};
  c.comm = comm;
  c.peer = peer;
  c.bytes = bytes;
  (capturing_ ? captured_ : calls_).push_back(c);
}

void RecordingBackend::recv(CommId comm, int peer, double bytes, StreamId s) {
  check_stream(s);
  Call c{CallKind::recv, s};
  c.comm = comm;
  c.peer = peer;
  c.bytes = bytes;
  (capturing_ ? captured_ : calls_).push_back(c);
}

void RecordingBackend::barrier(StreamId s) {
  check_stream(s);
  calls_.push_back({CallKind::barrier, s});
}

void RecordingBackend::begin_capture(StreamId origin) {
  check_stream(origin);
  capturing_ = true;
  captured_.clear();
  calls_.push_back({CallKind::begin_capture, origin});
}

void RecordingBackend::end_capture(StreamId origin) {
  capturing_ = false;
  calls_.push_back({CallKind::end_capture, origin});
}

void RecordingBackend::launch_captured(StreamId origin) {
  check_stream(origin);
  calls_.push_back({CallKind::launch_captured, origin});
}

void RecordingBackend::synchronize(StreamId s) {
  if (capturing_) throw std::runtime_error("host synchronisation inside a capture");
  calls_.push_back({CallKind::synchronize, s});
}

double RecordingBackend::elapsed_s(EventId from, EventId to) {
  if (events_.at(from).use != EventUse::timing || events_.at(to).use != EventUse::timing)
    throw std::runtime_error("elapsed time of a dependency event");
  if (events_[from].device != events_[to].device) throw std::runtime_error("elapsed time across devices");
  return 0;
}

std::vector<Call> RecordingBackend::iteration_calls() const {
  if (!captured_.empty()) return captured_;
  // Eager: after the last barrier and the zero event recorded right after it, up to the host's wait.
  size_t at = calls_.size();
  while (at > 0 && calls_[at - 1].kind != CallKind::barrier) --at;
  std::vector<Call> out;
  for (size_t i = at + 1; i < calls_.size() && calls_[i].kind != CallKind::synchronize; ++i) out.push_back(calls_[i]);
  return out;
}

std::string replay_iteration(const std::vector<std::unique_ptr<RecordingBackend>>& ranks, const World& world,
                             const std::vector<std::vector<uint32_t>>& p2p_tags) {
  struct Item {
    Call call;
    uint32_t awaited = 0;  // wait: the record count that satisfies it
    uint32_t p2p = 0;      // send/recv: index among the rank's p2p calls
  };
  struct Rank {
    std::vector<std::vector<Item>> streams;
    std::vector<size_t> head;
    std::vector<uint32_t> records;               // per event: records executed
    std::map<CommId, std::vector<const Item*>> comm_order;  // issue order per communicator
    std::map<CommId, size_t> comm_head;
  };
  std::vector<Rank> rs(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    Rank& R = rs[r];
    R.streams.resize(ranks[r]->streams().size());
    R.head.assign(R.streams.size(), 0);
    R.records.assign(ranks[r]->events().size(), 0);
    std::vector<uint32_t> issued(ranks[r]->events().size(), 0);
    uint32_t p2p = 0;
    for (const Call& c : ranks[r]->iteration_calls()) {
      Item it{c};
      if (c.kind == CallKind::record) ++issued[c.event];
      if (c.kind == CallKind::wait) {
        if (issued[c.event] == 0)
          return fmt::format("rank {}: waits on event {} that this iteration never recorded", r, c.event);
        it.awaited = issued[c.event];
      }
      if (c.kind == CallKind::send || c.kind == CallKind::recv) it.p2p = p2p++;
      R.streams.at(c.stream).push_back(it);
    }
    // A communicator's issue order is the host's order of calls (streams interleave).
    std::vector<size_t> pos(R.streams.size(), 0);
    for (const Call& c : ranks[r]->iteration_calls()) {
      const Item* it = &R.streams[c.stream][pos[c.stream]++];
      if (c.comm == kNoComm) continue;
      R.comm_order[c.comm].push_back(it);
      R.comm_head[c.comm] = 0;
    }
  }
  auto head_of = [&](size_t r, StreamId s) -> const Item* {
    const Rank& R = rs[r];
    return R.head[s] < R.streams[s].size() ? &R.streams[s][R.head[s]] : nullptr;
  };
  auto next_on = [&](size_t r, CommId c) -> const Item* {
    const Rank& R = rs[r];
    const auto it = R.comm_order.find(c);
    if (it == R.comm_order.end() || R.comm_head.at(c) >= it->second.size()) return nullptr;
    return it->second[R.comm_head.at(c)];
  };
  auto at_head = [&](size_t r, const Item* it) { return head_of(r, it->call.stream) == it; };
  auto advance = [&](size_t r, const Item* it) {
    ++rs[r].head[it->call.stream];
    if (it->call.comm != kNoComm) ++rs[r].comm_head[it->call.comm];
  };
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t r = 0; r < rs.size(); ++r)
      for (StreamId s = 0; s < rs[r].streams.size(); ++s)
        for (const Item* it = head_of(r, s); it != nullptr; it = head_of(r, s)) {
          const Call& c = it->call;
          if (c.kind == CallKind::wait && rs[r].records[c.event] < it->awaited) break;
          if (c.kind == CallKind::record) ++rs[r].records[c.event];
          if (c.kind == CallKind::collective || c.kind == CallKind::send || c.kind == CallKind::recv) {
            if (next_on(r, c.comm) != it) break;  // an earlier op of this communicator has not run
            const RecordedComm& comm = world.comms.at(c.comm);
            std::vector<std::pair<size_t, const Item*>> group;
            for (const RecordedMember& m : comm.members) {
              const Item* other = next_on(m.rank, c.comm);
              if (other == nullptr || !at_head(m.rank, other)) break;
              group.emplace_back(m.rank, other);
            }
            if (group.size() != comm.members.size()) break;
            for (const auto& [q, other] : group) {
              const Call& o = other->call;
              const bool same = c.kind == CallKind::collective
                                    ? o.kind == CallKind::collective && o.op == c.op && o.bytes == c.bytes
                                    : o.kind != CallKind::collective && ((o.kind != c.kind) == (q != r)) && o.bytes == c.bytes;
              if (!same)
                return fmt::format("communicator {}: rank {} runs {} of {} B while rank {} runs {} of {} B", c.comm, r,
                                   name(c.kind), c.bytes, q, name(o.kind), o.bytes);
              if (c.kind != CallKind::collective && q != r && p2p_tags[r].at(it->p2p) != p2p_tags[q].at(other->p2p))
                return fmt::format("communicator {}: rank {}'s message with tag {} meets rank {}'s with tag {}", c.comm,
                                   r, p2p_tags[r][it->p2p], q, p2p_tags[q][other->p2p]);
            }
            for (const auto& [q, other] : group)
              if (q != r) advance(q, other);
          }
          advance(r, it);
          progress = true;
        }
  }
  std::string stuck;
  for (size_t r = 0; r < rs.size(); ++r)
    for (StreamId s = 0; s < rs[r].streams.size(); ++s)
      if (const Item* it = head_of(r, s))
        stuck += fmt::format("{}rank {} stream {} at {} (comm {})", stuck.empty() ? "" : "; ", r, s, name(it->call.kind),
                             it->call.comm == kNoComm ? -1 : static_cast<int64_t>(it->call.comm));
  return stuck.empty() ? "" : "deadlock: " + stuck;
}

}  // namespace plansim::hw::testing
