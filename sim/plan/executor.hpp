#pragma once
// Runs every rank's program on the event engine. Compute ops take the compute model's time on the
// rank's compute stream, progressing 1 + comm_slowdown times slower for as long as one of the
// rank's communication ops is in flight (the overlapping part only); collectives start once every member has issued them and
// send/recv (asynchronous, like isend/irecv: they wait for their deps, not for their stream)
// once both sides are ready, and go through a CommService (the collective runner over
// the flow network in `plansim run`, so groups that share links contend).
#include <functional>
#include <stdexcept>
#include <span>
#include <vector>

#include "sim/compute/compute_model.hpp"
#include "sim/core/ids.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/plan/program.hpp"

namespace plansim {

inline constexpr uint32_t kNoGroup = ~0U;

struct CommRequest {
  CommOp op = CommOp::all_reduce;
  std::span<const GpuId> ranks;  // group members (send_recv: {sender, receiver}); valid during start() only
  Bytes bytes;
  Dim dim = Dim::tp;             // which parallel dimension issued it (pp for send/recv)
  // The CompiledPlan::groups entry whose members (shifted by replica·fold_stride) `ranks` are:
  // requests with equal (group, replica) have equal ranks; kNoGroup for send/recv.
  uint32_t group = kNoGroup;
  // Which folding replica a transfer is (CompiledPlan::fold): 0 for the executed ranks' own
  // transfers, j for the copy replayed for their j-th replicas (ranks shifted by j·fold_stride).
  uint32_t replica = 0;
  // Without replay (execute(..., replay = false)): how many replicas this transfer stands for,
  // itself included (ranks shifted by j·copy_stride, j < copies). Only replica 0 is issued; the
  // service must make the others land with it or throw. 1: the transfer has no copies (its group
  // spans the folded dimension, or the plan is not folded).
  uint32_t copies = 1;
  uint32_t copy_stride = 0;
};

class CommService {
 public:
  virtual ~CommService() = default;
  // Starts a transfer at the simulation's current time; `on_done` runs when it completes.
  virtual void start(const CommRequest& request, std::function<void()> on_done) = 0;
};

struct OpTiming {
  Time start;  // for collectives: when all members were ready (the transfer's start)
  Time end;
};

struct ExecutionResult {
  Time iteration;                              // last op end over all ranks
  std::vector<std::vector<OpTiming>> timings;  // [rank][op]
  std::vector<Time> compute_cost;              // per CompiledPlan::costs entry, without slowdown
  uint64_t events = 0;
  uint64_t comm_calls = 0;
};

// Thrown by execute() on a folded plan (CompiledPlan::fold > 1) when the copies of one transfer
// replayed for the replicas do not all land at the same instant: the replicas would not stay in
// lockstep, so the folded run would differ from the unfolded one. Until then the two are the same
// run (same flows on the network at the same times), so a folded run that completes is exact.
struct FoldDivergence : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `replay`: issue every folding replica's copy of a replicated transfer (the members complete when
// the last lands; copies landing apart throw FoldDivergence). Without it only replica 0 is issued,
// with CommRequest::copies saying how many it stands for (network planes, see replica_planes.hpp).
ExecutionResult execute(const CompiledPlan& plan, const ComputeModel& compute, CommService& comm, Simulation& sim,
                        bool replay = true);

}  // namespace plansim
