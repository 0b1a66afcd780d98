#pragma once
// The quantisation work an fp8 training stack does around each fp8 GEMM: scaling its bf16 operands and
// casting them to fp8 (and to the transposed layouts the backward GEMMs need). These are separate
// memory-bound kernels, charged as HBM bytes (ComputeModel::op_time adds bytes / achievable bandwidth
// and a launch overhead per kernel to the GEMM's time). For one linear layer Y = X·W with X the M×K
// input, W the K×N weight and G = dY the M×N output gradient (per rank: K or N already split by TP),
// bf16 = 2 bytes, fp8 = 1 byte, the bytes per element of each operand are, per `model.fp8_scaling`:
//
// tensorwise — torchao Float8Linear, dynamic tensorwise scaling (torchtitan). torchao's own roofline of
// its float8 overhead (pytorch/ao torchao/testing/training/roofline_utils.py @ 0598012,
// get_tensor_memory_traffic_ovhd_s, recipe "tensorwise"; the float8_roofline.py benchmark's default
// enable_fusion_modeling=False, i.e. the amax pass not fused into the producing op, which its docstring
// says torch.compile "not always" achieves): each of X and G: an amax pass (read 2), a second-stage
// reduction (a launch, no traffic) and one cast writing both fp8 layouts (read 2, write 1 + 1) = 6;
// W: amax (read 2) and a forward cast (read 2, write 1), and in backward a second cast to the other
// layout (read 2, write 1) = 8. Forward: 6·X + 5·W bytes in 6 kernels; data gradient: 6·G + 3·W in
// 4 kernels; weight gradient: nothing (X and G were written in both layouts). Casts before an fp8
// all-gather (sequence-parallel TP, ZeRO-3 weights) cover the rank's shard: see CastSite.
//
// rowwise — torchao's "rowwise" recipe (same source): scales per row, so the transposed layout needs its
// own scales: X and G: one kernel reading bf16 and writing fp8 plus a bf16 transposed copy (2 + 1 + 2),
// one casting that copy (2 + 1) = 8; W: forward cast (2 + 1), in backward a bf16 transpose (2 + 2) and
// its cast (2 + 1) = 10. Forward 5·X + 3·W (2 kernels); data gradient 5·G + 7·W (3); weight gradient
// 3·X + 3·G (2).
//
// delayed — Transformer Engine's DelayedScaling (the scale comes from the amax history, so a cast needs
// no pass of its own and TE fuses it into the kernel that produces the operand: LayerNormLinear and
// LayerNormMLP emit fp8 from their norm, their activation and their activation's backward; TE docs,
// "Using FP8 with Transformer Engine", delayed scaling; transformer_engine/pytorch/module/
// layernorm_mlp.py). An operand whose producer is not such a kernel (flash attention's output, a
// gradient arriving from attention or the residual stream, MoE token permutation) is cast by one
// cast-transpose kernel (read 2, write 1 + 1 = 4, its amax recorded on the way). Weights are cast once
// per iteration and reused by later micro-batches (TE Linear's `is_first_microbatch`, which Megatron-Core
// passes): 4·W per iteration, charged as 4·W / micro-batches per micro-batch.
//
// Whatever the mode, a recomputed forward repeats its forward casts (the recompute re-runs the layer).
#include <optional>
#include <string>

namespace plansim {

enum class Fp8Scaling { delayed, tensorwise, rowwise };
const char* to_string(Fp8Scaling s);
std::optional<Fp8Scaling> fp8_scaling_from_string(const std::string& s);

// One pass's quantisation kernels: HBM bytes read + written and the number of kernels launched
// (fractional where a cast is amortised over micro-batches).
struct QuantiseCost {
  double bytes = 0;
  double kernels = 0;
};

// The casts of one linear layer, by the pass that runs them.
struct GemmCasts {
  QuantiseCost forward, dgrad, wgrad;
};

// Where the layer's operands come from.
struct CastSite {
  // Delayed scaling: the kernel producing X (a norm or activation of the stack) / G (an activation's
  // backward) casts it on its way out; the dynamic torchao recipes need the amax first and do not.
  bool input_fused = false;
  bool gradient_fused = false;
  // Tensorwise under sequence parallelism: torchtitan's float8 TP plan (torchao Float8ColwiseParallel,
  // PrepareFloat8ModuleInput, Float8RowwiseParallel, torchao/float8/float8_tensor_parallel.py) casts a
  // column-parallel layer's input X and a row-parallel layer's output gradient G on the rank's sequence
  // shard and all-gathers them in fp8: the amax and cast (read 2, write 1) cover the shard (this
  // fraction of the operand), and the gathered tensor is transposed in fp8 (read 1, write 1) for the
  // weight-gradient GEMM. 1: cast whole.
  double input_shard = 1;
  double gradient_shard = 1;
  // Tensorwise under ZeRO-3 with the weights gathered in fp8 (torchao enable_fsdp_float8_all_gather, with
  // precompute_float8_dynamic_scale_for_fsdp computing every weight's scale once per iteration;
  // torchao/float8/fsdp_utils.py): each all-gather casts the rank's shard (this fraction of the weight;
  // read 2, write 1), forward and again for the backward's re-gather, and the data-gradient GEMM
  // transposes the gathered fp8 weight (read 1, write 1). 1: the weight is cast whole.
  double weight_shard = 1;
};

// The casts around one linear layer of an M×K input and a K×N weight, per micro-batch of an iteration
// of `micro_batches` (torchao casts the weight in every forward; TE once per iteration).
GemmCasts fp8_gemm_casts(Fp8Scaling mode, double m, double k, double n, const CastSite& site, int micro_batches);

}  // namespace plansim
