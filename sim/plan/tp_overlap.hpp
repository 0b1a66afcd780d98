#pragma once
// TP communication overlapped with compute (training.overlap.tp_comm: Megatron's userbuffers
// `tp_comm_overlap`, PyTorch's async TP), as the plan compiler wires it.
//
// Both implementations pipeline a TP collective with one GEMM, not with the block around it: the
// all-gather before a block is cut into tp ring steps, each feeding the block's first GEMM on one
// piece of the tokens, and the reduce-scatter after it takes the last GEMM's output piece by piece.
// So with the overlap on, a block's compute is emitted as three ops, [before] [rest] [after]:
//   * `before`: the GEMM beside the collective before the block. It and the all-gather start
//     together (when the block's input is ready); `rest` waits for both (a ring-exchange GEMM cannot
//     finish before its last piece arrives).
//   * `rest`: the block's other kernels in their order (norms, attention core, activation, residual,
//     the other GEMMs). Moving the norm before the first GEMM and the residual before the last into
//     `rest` keeps the block's total and hides nothing behind them.
//   * `after`: the GEMM beside the collective after the block. It and the reduce-scatter (or
//     all-reduce) start together when `rest` ends; the rank's next kernel or send waits for both.
// A block with its collectives C_b, C_a therefore takes max(G_b, C_b) + rest + max(G_a, C_a), the
// GEMMs slowed by comm_slowdown only while a collective runs beside them (the executor's rule):
// communication longer than its paired GEMM is exposed, never hidden behind the attention core or
// the norms.
//
// Which GEMM pairs with which collective (Transformer Engine's userbuffers defaults,
// transformer_engine/pytorch/module/base.py, initialize_ub: ring_exchange for qkv_fprop, fc1_fprop,
// proj_dgrad, fc2_dgrad; pipeline for proj_fprop, fc2_fprop; bulk for qkv/fc1 dgrad and wgrad, and
// `layers_reduce_scatter_overlap` = proj_fprop, fc2_fprop, qkv_wgrad, fc1_wgrad):
//   forward:  all-gather | qkv, mlp_up;          reduce-scatter | attention_out, mlp_down.
//   backward: all-gather of the output gradient | attention_out_dgrad, mlp_down_dgrad (ring exchange);
//             reduce-scatter of the input gradient | qkv_wgrad, mlp_up_wgrad (TE's bulk overlap runs it
//             beside the weight gradient of the GEMM whose data gradient it reduces), or, where that
//             pass has no weight gradient (zero-bubble B, frozen weights), that data gradient itself
//             (PyTorch async TP's fused matmul-reduce-scatter, TE's ub_overlap_rs_dgrad).
// The pairs are the GEMMs that run as tp pieces (OpCost::token_chunks > 1, model/transformer.hpp):
// dense attention and MLP blocks. A block without such a GEMM (the MoE block: router and grouped
// expert GEMMs, whose TP collectives Megatron's token dispatcher issues on their own) is one op and its
// collectives are not overlapped. Without sequence parallelism (no all-gather; Megatron refuses
// tp_comm_overlap without it) `before` still runs as its own op, beside nothing.
// Not modelled: backward's second all-gather of a column-parallel GEMM's input for its weight gradient
// (TE's bulk qkv_dgrad / fc1_dgrad overlap), which the plan does not issue with or without the overlap.
// With the overlap off a block is one op and its collectives wait for it (unchanged).
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/model/transformer.hpp"

namespace plansim {

// Kernel indices of a block's paired GEMMs (-1: none). `before` < `after` where both exist.
struct TpPairs {
  int before = -1;
  int after = -1;
  [[nodiscard]] bool split() const { return before >= 0; }
};
// Forward: the block's first and last pipelined GEMMs. Backward (backward_of / finetune_backward
// order): the first pipelined data gradient (the last forward GEMM's), and the last one's weight
// gradient where it directly follows, else that data gradient. No split when the block has no
// pipelined GEMM or nothing else (every other kernel would be empty).
TpPairs tp_pairs(const std::vector<OpCost>& kernels, bool backward);

struct TpOverlapState {
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  uint32_t gather = kNone;  // the all-gather the next block's `before` GEMM pairs with
  uint32_t join = kNone;    // the last overlapped collective; the next compute kernel or send waits for it
  // The dependency a consumer adds (and clears): kNone when nothing is pending.
  uint32_t take() {
    const uint32_t j = join;
    join = kNone;
    return j;
  }
};

}  // namespace plansim
