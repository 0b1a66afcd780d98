#pragma once
// Per-rank programs: the plan compiler's output and the input of every back end (the simulator's
// executor here, the real-GPU executor in hw/). Back-end-neutral data: no simulator type inside.
//
// An op runs on one stream of its rank; ops on a stream run in program order (CUDA-stream
// semantics) and each op also waits for its explicit deps (indices into the same program).
// compute: a fused kernel sequence whose per-kernel costs are in CompiledPlan::costs[cost].
// collective: every member of groups[group] issues its `seq`-th op on that group; it starts when
//   all members have issued it. bytes follow nccl-tests (all_gather: the gathered output size).
// send/recv: matched by (sender, receiver, tag); the transfer starts when both sides are ready.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/transformer.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/sched/holding.hpp"
#include "sim/sched/schedule.hpp"

namespace plansim {

// host_copy: bytes between HBM and host memory on the copy engines (stream d2h or h2d), timed like a
// compute op by its cost entry (one OpClass::host_copy kernel); neither compute nor communication.
enum class OpKind : uint8_t { compute, collective, send, recv, host_copy };
enum class StreamKind : uint8_t { compute, tp_comm, cp_comm, ep_comm, dp_comm, pp_comm, d2h, h2d };
inline constexpr int kStreamCount = 8;
const char* to_string(StreamKind s);
enum class CommOp : uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };
const char* to_string(CommOp c);

struct ProgramOp {
  OpKind kind = OpKind::compute;
  StreamKind stream = StreamKind::compute;
  Phase phase = Phase::F;
  bool recompute = false;      // compute re-done in backward (counts in HFU, not MFU)
  CommOp comm = CommOp::all_reduce;
  uint16_t chunk = 0;          // the chunk of the schedule op (sched/schedule.hpp) a micro-batch op belongs to
  uint32_t cost = 0;           // compute: index into CompiledPlan::costs
  uint32_t group = 0;          // collective: index into CompiledPlan::groups
  uint32_t seq = 0;            // collective: this rank's n-th op on the group
  uint32_t peer = 0;           // send/recv: the other rank
  uint32_t tag = 0;            // send/recv: matching tag
  double bytes = 0;            // collective/send/recv payload
  int32_t micro_batch = -1;    // -1 for per-iteration ops
  uint32_t dep_begin = 0;      // deps are Program::deps[dep_begin, dep_begin + dep_count)
  uint32_t dep_count = 0;
};

struct Program {
  uint32_t rank = 0;
  int stage = 0;
  std::vector<ProgramOp> ops;
  std::vector<uint32_t> deps;
};

struct ComputeCost {
  std::string name;
  std::vector<OpCost> kernels;
  double flops = 0;  // sum over kernels
};

struct Group {
  Dim dim = Dim::tp;
  std::vector<uint32_t> ranks;  // in group-rank order
  uint32_t simulated_members = 0;  // members that have a program (all, unless TP is folded)
};

struct CompiledPlan {
  int world = 0;
  int stages = 1;
  int micro_batches = 1;
  std::vector<Group> groups;
  std::vector<ComputeCost> costs;
  std::vector<Program> programs;  // rank order; rank r runs on GPU r
  std::vector<int32_t> program_of_rank;  // index into programs, -1 for a folded rank
  std::vector<StageHolding> held;  // per stage: the activations its schedule order keeps (sched/holding.hpp)
  // Folding (CompileOptions::fold_tp / fold_dp): only ranks whose `fold_dim` coordinate is 0 have
  // programs; rank r + j·fold_stride (j < fold) runs the same program as r. A back end replays every
  // transfer of r whose group does not span that dimension (Group::simulated_members equal to its
  // size; send/recv always) for each such replica; the others (TP collectives when TP is folded, DP
  // collectives when DP is) already name all members.
  int fold = 1;
  int fold_stride = 0;
  Dim fold_dim = Dim::tp;
};

// Every program's ops in one array, rank after rank: element r is program r's first op's index in it,
// the last element the total. Both the executor and the bound (report/plan_bound.cpp) address ops so.
// Throws InternalError past 2^31 ops (the executor keeps a flag bit of each 32-bit index).
std::vector<uint32_t> global_op_offsets(const CompiledPlan& plan);

}  // namespace plansim
