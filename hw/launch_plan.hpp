#pragma once
// What `plansim-hw run` launches, worked out from a CompiledPlan without a GPU: the executor
// (plan_executor.cpp) only walks these lists, so a GPU-free test comparing them with the plan's
// programs shows that the hardware runs exactly the simulator's programs (op for op, same streams,
// deps, groups and bytes). Nothing about TP/PP/DP is decided here: it all comes from sim/plan.
//
// Per rank: one CUDA stream per StreamKind, plus one per PP channel (a directed (sender, receiver)
// pair) on each side, so that sends and receives are, as in the simulator, not ordered behind
// each other. Each launch waits for its explicit deps (earlier ops of the same program, through
// CUDA events) and follows its stream's order.
// Compute ops: every kernel of the op's cost, in order. gemm and attention kernels with a shape
// (OpCost::dims) run cost.flops / dims.flops() strided-batched GEMMs of that shape, attention with a
// row softmax over the m×n scores after every second GEMM; kernels without FLOPs run a bandwidth-bound
// copy moving their hbm_bytes (half read, half written).
// Collectives: NCCL on a communicator per plan group (same index). send/recv: ncclSend/ncclRecv on
// a two-rank communicator per channel; matched in order, which must agree with the plan's tags.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/plan/program.hpp"

namespace plansim::hw {

enum class KernelKind : uint8_t { gemm, softmax, copy };

// A copy larger than this (e.g. Adam over a stage's parameters, tens of GB) runs as consecutive copies
// of at most this many bytes per side on one stream: the same bytes move, the buffers stay small.
inline constexpr double kCopyChunkBytes = 256.0 * 1024 * 1024;

struct KernelLaunch {
  KernelKind kind = KernelKind::copy;
  GemmDims dims{};  // gemm: one strided batch; softmax: batch·m rows of n
  double bytes = 0; // copy: bytes read + written
};

struct Launch {
  uint32_t op = 0;  // index in the rank's program
  OpKind kind = OpKind::compute;
  uint32_t stream = 0;           // index into the rank's streams (see LaunchPlan)
  std::vector<uint32_t> waits;   // program indices of the explicit deps (all < op)
  std::vector<KernelLaunch> kernels;  // compute
  CommOp comm = CommOp::all_reduce;   // collective
  uint32_t communicator = 0;     // collective/send/recv: index into LaunchPlan::communicators
  uint32_t peer = 0;             // send/recv: the other world rank
  double bytes = 0;              // collective/send/recv payload (the plan's bytes)
};

struct Communicator {
  std::vector<uint32_t> ranks;  // world ranks in communicator-rank order
  std::string label;            // "tp group 0", "pp 3->4", ...
};

struct RankLaunches {
  uint32_t rank = 0;
  uint32_t streams = kStreamCount;  // kStreamCount StreamKind streams, then one per PP channel end
  std::vector<Launch> launches;     // program order
};

struct LaunchPlan {
  int world = 0;
  std::vector<Communicator> communicators;  // plan.groups (same indices), then the PP channels
  // ncclCommSplit rounds: each a set of communicators with disjoint ranks, created by one split of the
  // world (colour = the communicator's index); every communicator is in exactly one round. Greedy in
  // communicator order: a plan's DP groups, say, all come from one split instead of one each.
  std::vector<std::vector<uint32_t>> split_rounds;
  std::vector<RankLaunches> ranks;          // rank order
  // Largest buffers one rank needs (elements of the model dtype / bytes), allocated once.
  double gemm_a_elems = 0, gemm_b_elems = 0, gemm_d_elems = 0;
  double copy_bytes = 0;   // each of the copy's source and destination (at most kCopyChunkBytes)
  double comm_bytes = 0;   // each of the send and receive buffers
};

// Throws std::invalid_argument for a plan the hardware cannot run as is: TP-folded (compile with
// fold_tp = false), a dep on a later op, or send/recv whose order on a channel disagrees with the tags.
LaunchPlan plan_launches(const CompiledPlan& plan);

// Products a kernel runs: flops / dims.flops(), which must be a whole number.
int gemm_repeats(const OpCost& k);

}  // namespace plansim::hw
