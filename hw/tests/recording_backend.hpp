#pragma once
// A GPU-free ExecBackend (hw/exec_backend.hpp) that records every call, for tests of the executor's host
// logic: which device each stream, event and communicator lives on, which waits it issues, and what it
// enqueues on which communicator in which order. It behaves like CUDA where CUDA would reject a call (an
// event recorded on another device's stream throws), keeps the current device per thread (0 on a fresh
// thread, as CUDA's runtime), and forms communicators from the split calls of all ranks. It measures
// nothing: a test double for host logic only, never a measurement.
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hw/exec_backend.hpp"

namespace plansim::hw::testing {

enum class CallKind { record, wait, compute, collective, send, recv, barrier, begin_capture, end_capture,
                      launch_captured, synchronize };

struct Call {
  CallKind kind = CallKind::record;
  StreamId stream = 0;
  EventId event = 0;
  CommId comm = kNoComm;   // collective/send/recv: the shared communicator id (World::comms)
  CommOp op = CommOp::all_reduce;
  int peer = -1;           // send/recv: rank in the communicator
  double bytes = 0;
};

struct RecordedMember {
  int key = 0;
  uint32_t rank = 0;
  int device = -1;  // the device current on the thread that split it
};
struct RecordedComm {
  std::vector<RecordedMember> members;  // in split order
};

// What all ranks share: communicators made by split, each with its members by key.
struct World {
  std::vector<RecordedComm> comms;
  std::map<std::pair<int, int>, CommId> by_split;  // (split call index, colour) -> comm
};

class RecordingBackend final : public ExecBackend {
 public:
  RecordingBackend(World& world, uint32_t rank, int device) : world_(world), rank_(rank), device_(device) {}

  void bind_thread() override;
  StreamId create_stream(bool high_priority) override;
  EventId create_event(EventUse use) override;
  void prepare(const LaunchPlan&, const RankLaunches&) override { prepared_ = true; }
  CommId split(int colour, int key) override;
  void record(EventId e, StreamId s) override;
  void wait(StreamId s, EventId e) override;
  void compute(const KernelLaunch& k, StreamId s) override;
  void collective(CommOp op, CommId c, double bytes, int nranks, StreamId s) override;
  void send(CommId c, int peer, double bytes, StreamId s) override;
  void recv(CommId c, int peer, double bytes, StreamId s) override;
  void barrier(StreamId s) override;
  void begin_capture(StreamId origin) override;
  void end_capture(StreamId origin) override;
  void launch_captured(StreamId origin) override;
  void synchronize(StreamId s) override;
  double elapsed_s(EventId from, EventId to) override;

  struct Stream {
    int device = -1;
    bool high_priority = false;
  };
  struct Event {
    int device = -1;
    EventUse use = EventUse::timing;
    uint32_t records = 0;
  };
  [[nodiscard]] const std::vector<Call>& calls() const { return calls_; }
  [[nodiscard]] const std::vector<Stream>& streams() const { return streams_; }
  [[nodiscard]] const std::vector<Event>& events() const { return events_; }
  [[nodiscard]] uint32_t rank() const { return rank_; }
  [[nodiscard]] int device() const { return device_; }
  // Calls of one iteration: the captured ones, or (eager) those after the last barrier's zero event.
  [[nodiscard]] std::vector<Call> iteration_calls() const;

 private:
  void check_stream(StreamId s) const;
  World& world_;
  uint32_t rank_;
  int device_;
  int splits_ = 0;
  bool prepared_ = false;
  bool capturing_ = false;
  std::vector<Stream> streams_;
  std::vector<Event> events_;
  std::vector<Call> calls_;
  std::vector<Call> captured_;
};

// Executes the iteration calls of every rank under CUDA stream and NCCL semantics: a stream runs its calls
// in order; a wait passes once the event's awaited record has run; a communicator's operations run in
// the order each member issued them and only when every member has reached its matching one (a
// collective of the same op and bytes on all members; a send with the receive from the same peer of the
// same bytes). Returns "" when every call ran, else where it stuck (a deadlock) or what did not match.
// p2p_tags: per rank, the plan's tag of its n-th send or recv call, to check that each pair carries one tag.
std::string replay_iteration(const std::vector<std::unique_ptr<RecordingBackend>>& ranks, const World& world,
                             const std::vector<std::vector<uint32_t>>& p2p_tags);

}  // namespace plansim::hw::testing
