#pragma once
// The calls `plansim-hw run`'s per-rank logic (rank_runner.hpp) makes on CUDA, NCCL, cuBLASLt and cuDNN,
// behind one interface. cuda_backend.cpp implements it on a GPU; the tests' recording backend
// (hw/tests/recording_backend.hpp) implements it without one, to check the host logic: on which device
// each stream, event and communicator lives, that every cross-stream wait mirrors a program dependency,
// and that every member issues a communicator's operations in the same order. The recording backend is
// a test double for host logic only: it never stands in for a measurement.
//
// Objects are small integer handles owned by the backend. One backend instance serves one rank (one
// GPU); the rank's calls may come from several threads in turn, each of which starts with bind_thread().
#include <cstdint>

#include "hw/launch_plan.hpp"

namespace plansim::hw {

using StreamId = uint32_t;
using EventId = uint32_t;
using CommId = uint32_t;
inline constexpr CommId kNoComm = UINT32_MAX;

// timing: recorded around ops and read with elapsed_s (captured as event-record nodes in a CUDA
// graph); dependency: recorded and waited on only (cross-stream order inside the iteration).
enum class EventUse : uint8_t { timing, dependency };

class ExecBackend {
 public:
  virtual ~ExecBackend() = default;

  // Makes the rank's GPU current on the calling thread (cudaSetDevice). Every object below is created
  // on the current device, so this comes first on every thread.
  virtual void bind_thread() = 0;
  virtual StreamId create_stream(bool high_priority) = 0;
  virtual EventId create_event(EventUse use) = 0;
  // Buffers, GEMM algorithms and attention plans for every kernel of the rank; random operands.
  virtual void prepare(const LaunchPlan& lp, const RankLaunches& rl) = 0;
  // Collective over the world communicator: ncclCommSplit; kNoComm when colour < 0 (not a member).
  virtual CommId split(int colour, int key) = 0;

  virtual void record(EventId e, StreamId s) = 0;
  virtual void wait(StreamId s, EventId e) = 0;
  virtual void compute(const KernelLaunch& k, StreamId s) = 0;
  virtual void collective(CommOp op, CommId c, double bytes, int nranks, StreamId s) = 0;
  virtual void send(CommId c, int peer, double bytes, StreamId s) = 0;  // peer: rank in the communicator
  virtual void recv(CommId c, int peer, double bytes, StreamId s) = 0;
  virtual void barrier(StreamId s) = 0;  // one-element all-reduce on the world communicator

  // CUDA graph of one iteration: capture begins and ends on the origin stream (which every other stream
  // forks from and joins back to); launch_captured replays it on that stream.
  virtual void begin_capture(StreamId origin) = 0;
  virtual void end_capture(StreamId origin) = 0;
  virtual void launch_captured(StreamId origin) = 0;

  // The host waits for the stream (and stops with an error when the run is being aborted).
  virtual void synchronize(StreamId s) = 0;
  // Seconds between two completed timing events.
  virtual double elapsed_s(EventId from, EventId to) = 0;
};

}  // namespace plansim::hw
