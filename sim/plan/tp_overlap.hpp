#pragma once
// TP communication overlapped with compute (training.overlap.tp_comm: Megatron's userbuffers
// `tp_comm_overlap`, PyTorch's async TP), as the plan compiler wires it.
//
// Each TP collective is paired with the block beside it (the all-gather before a block with its first
// GEMM, the reduce-scatter or all-reduce after it with its last): both start when the block's input is
// ready and run on the TP stream while the block computes, and the next compute kernel or send of the
// rank waits for them, because it consumes their output. A block with its collectives therefore takes
// max(its compute, slowed by comm_slowdown while they run; their transfer time): communication that
// outlasts the GEMMs it hides behind is exposed, not free. The GEMMs themselves run as tp pipelined
// pieces (Shard::tp_overlap_chunks, model/transformer.hpp). What stays optimistic: a collective may
// hide behind the whole block (attention core, norms) rather than only its paired GEMM.
#include <cstdint>
#include <limits>

namespace plansim {

struct TpOverlapState {
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  uint32_t block_in = kNone;  // the input of the block the next collectives pair with
  uint32_t join = kNone;      // the last overlapped collective; the next compute kernel or send waits for it
  // The dependency a consumer adds (and clears): kNone when nothing is pending.
  uint32_t take() {
    const uint32_t j = join;
    join = kNone;
    return j;
  }
};

}  // namespace plansim
