#pragma once
// What `plansim-hw run` launches, worked out from a CompiledPlan without a GPU: the executor
// (rank_runner.cpp) only walks these lists, so a GPU-free test comparing them with the plan's
// programs shows that the hardware runs exactly the simulator's programs (op for op, same streams,
// deps, groups and bytes). Nothing about TP/PP/DP is decided here: it all comes from sim/plan.
//
// Per rank: one CUDA stream per StreamKind, plus one per PP lane end (below). Each launch waits for
// its explicit deps (earlier ops of the same program, through CUDA events) and follows its stream's
// order.
// Compute ops: every kernel of the op's cost, in order. A gemm kernel runs its product shape
// (OpCost::dims: m, n, k and batch = the strided batch, i.e. the group count of a grouped GEMM with
// equal groups) cost.flops / dims.flops() times, whatever shapes the model gives each kernel (data
// and weight gradients, expert GEMMs). An attention kernel is one fused causal SDPA (cuDNN) over
// batch = sequences x heads, queries m, keys n, head dim k: forward when its FLOPs are 2 products
// (QKᵀ, A·V), backward when 4. Kernels without FLOPs run a bandwidth-bound copy of their hbm_bytes.
// Collectives: NCCL on a communicator per plan group (same index); groups of one rank and groups no
// op uses get no communicator. send/recv: NCCL matches a pair's sends and receives in issue order,
// the simulator by tag; a channel (sender -> receiver) whose two sides order their messages
// differently (DualPipe's two directions) is split into lanes, each a two-rank communicator with
// its own stream on both sides, such that within a lane both sides issue the same tag order (the
// fewest lanes: patience sorting of the receive order by send position).
#include <cstdint>
#include <string>
#include <vector>

#include "hw/gemm_dtype.hpp"
#include "sim/plan/program.hpp"

namespace plansim::hw {

enum class KernelKind : uint8_t { gemm, attention, copy };
inline constexpr int kKernelKinds = 3;
const char* to_string(KernelKind k);

// A copy larger than this (e.g. Adam over a stage's parameters, tens of GB) runs as consecutive copies
// of at most this many bytes per side on one stream: the same bytes move, the buffers stay small.
inline constexpr double kCopyChunkBytes = 256.0 * 1024 * 1024;

struct KernelLaunch {
  KernelKind kind = KernelKind::copy;
  GemmDims dims{};        // gemm: one strided batch; attention: m queries, n keys, k head dim, batch b·heads
  double bytes = 0;       // copy: bytes read + written
  bool backward = false;  // attention: dQ, dK, dV from dO (else the forward with its softmax statistics)
  bool causal = true;     // attention: decoder (causal) mask
  [[nodiscard]] double flops() const;  // gemm: dims.flops(); attention: 2 (forward) or 4 (backward) products
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
  uint32_t tag = 0;              // send/recv: the plan's tag
  double bytes = 0;              // collective/send/recv payload (the plan's bytes)
};

// One operation a communicator runs, for connecting it before the timed iterations.
struct CommTouch {
  OpKind kind = OpKind::collective;  // collective, or send (the lane's sender side; the receiver receives)
  CommOp comm = CommOp::all_reduce;
  double bytes = 0;                  // the largest payload of that kind on the communicator
};

struct Communicator {
  std::vector<uint32_t> ranks;  // world ranks in communicator-rank order
  std::string label;            // "tp group 0", "pp 3->4", "pp 3->4 lane 1", ...
  bool created = false;         // more than one rank and used by some launch: made by ncclCommSplit
  std::vector<CommTouch> touches;  // what runs on it (distinct kinds, largest bytes), in plan order
};

struct RankLaunches {
  uint32_t rank = 0;
  uint32_t streams = kStreamCount;  // kStreamCount StreamKind streams, then one per PP lane end
  std::vector<Launch> launches;     // program order
};

struct LaunchPlan {
  int world = 0;
  GemmDtype dtype = GemmDtype::kBf16;
  std::vector<Communicator> communicators;  // plan.groups (same indices), then the PP lanes
  // ncclCommSplit rounds: each a set of created communicators with disjoint ranks, made by one split
  // of the world (colour = the communicator's index); every created communicator is in exactly one
  // round. Greedy in communicator order: a plan's DP groups, say, all come from one split.
  std::vector<std::vector<uint32_t>> split_rounds;
  std::vector<RankLaunches> ranks;          // rank order
  // Largest buffers one rank needs (elements of the model dtype / bytes), allocated once.
  double gemm_a_elems = 0, gemm_b_elems = 0, gemm_d_elems = 0;
  double attention_qkv_elems = 0;  // each of Q, K, V, O (and dO, dQ, dK, dV) of the largest attention
  double attention_stats_elems = 0;  // fp32 softmax statistics (b·heads·queries)
  double copy_bytes = 0;   // each of the copy's source and destination (at most kCopyChunkBytes)
  double comm_bytes = 0;   // each of the send and receive buffers
};

// Throws std::invalid_argument for a plan the hardware cannot run as is: TP-folded (compile with
// fold_tp = false), a dep on a later op, send/recv on a channel whose two sides carry different tags,
// an attention kernel that is neither 2 nor 4 products, or (fp8) a GEMM shape cuBLASLt cannot tile.
LaunchPlan plan_launches(const CompiledPlan& plan, GemmDtype dtype = GemmDtype::kBf16);

// Products a kernel runs: flops / dims.flops(), which must be a whole number.
int gemm_repeats(const OpCost& k);

// Lanes of a channel: for each message in the receiver's order, its lane; `send_order` and
// `recv_order` are the same tags in the two sides' issue orders. Within a lane both orders agree, and
// no fewer lanes can do (a lane is an increasing run of send positions; greedy = optimal).
std::vector<uint32_t> channel_lanes(const std::vector<uint32_t>& send_order, const std::vector<uint32_t>& recv_order);

// The unfused attention fallback (no cuDNN) runs the heads in chunks whose m x n scores fit in
// `max_score_elems`: the batch sizes of the chunks (each >= 1, summing to dims.batch).
std::vector<int64_t> attention_chunks(const GemmDims& dims, double max_score_elems);

}  // namespace plansim::hw
