#pragma once
// One rank of `plansim-hw run`, written against ExecBackend (exec_backend.hpp) so that the same code runs
// on a GPU and under the tests' recording backend. Phases, each started on a thread of its own:
//   setup()      bind the GPU, create the streams (compute at low priority, communication high), the
//                events (per op: start and end for timing, done for dependencies; zero; fork/join),
//                buffers and kernel plans. No NCCL call: a failure here is agreed on before any rank
//                enters NCCL (plan_executor.cpp).
//   split()      one ncclCommSplit of the world per LaunchPlan::split_rounds entry, in order, on every
//                rank (colour = the communicator's index, key = the position of this rank in it).
//   connect()    every created communicator, in communicator order, runs once what it will run in the
//                iteration (its CommTouch list), so NCCL's lazy connections are made outside it, in an
//                order no cycle of waits can break, for what runs only.
//   iteration()  barrier (one-element all-reduce on the world) on the origin stream, the zero event on that
//                stream right after it (no host synchronisation in between: the barrier aligns the ranks'
//                zeros on the device), then the iteration (replayed CUDA graph, or enqueued eagerly), then
//                the host waits.
// Events are created in this order (tests rely on it): per launch start, end, done; then zero, fork and one
// join per stream.
// The iteration enqueues: a fork event on the origin stream that every other stream waits for; per launch,
// waits on its deps' done events, start event, the op, end event, done event; a join event per stream
// that the origin waits for.
#include <vector>

#include "hw/exec_backend.hpp"
#include "hw/launch_plan.hpp"
#include "hw/measured.hpp"

namespace plansim::hw {

class RankRunner {
 public:
  // graph: capture the iteration once in a CUDA graph and replay it (else enqueue every iteration).
  RankRunner(const LaunchPlan& lp, const RankLaunches& rl, ExecBackend& backend, bool graph);

  void setup();
  void split();
  void connect();
  void iteration();
  // Per op: start and end from this rank's zero of the last iteration.
  [[nodiscard]] std::vector<OpSpan> spans();

  [[nodiscard]] const std::vector<CommId>& comms() const { return comms_; }

 private:
  void enqueue();
  void enqueue_launch(const Launch& l);
  [[nodiscard]] StreamId origin() const { return streams_[static_cast<size_t>(StreamKind::compute)]; }

  const LaunchPlan& lp_;
  const RankLaunches& rl_;
  ExecBackend& be_;
  bool graph_ = true;
  bool captured_ = false;
  std::vector<StreamId> streams_;
  std::vector<EventId> start_, end_, done_, join_;
  EventId zero_ = 0, fork_ = 0;
  std::vector<CommId> comms_;  // per LaunchPlan communicator; kNoComm where this rank has none
};

}  // namespace plansim::hw
