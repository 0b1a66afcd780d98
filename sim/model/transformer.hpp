#pragma once
// Transformer spec -> ops with FLOPs and HBM bytes, and parameter counts.
//
// FLOP conventions (Narayanan et al. 2021): a GEMM (m×k)·(k×n) is 2mkn FLOPs; attention counts the
// full s×s score matrix (QKᵀ and A·V: 4·b·s²·h per layer forward), as Megatron does, causal or not;
// backward = 2 × forward (input gradient + weight gradient, each one forward). These are the model
// FLOPs (OpCost::flops, MFU). What a kernel executes (OpCost::executed_flops, timing) differs: a
// causal flash kernel computes s(s+1)/2 of the s² query-key pairs (a sliding window fewer), flash
// backward recomputes QKᵀ (5 products where 4 are counted: Dao 2023, FlashAttention-2, Sec. 3.2), and
// capacity-padded experts compute their padding. Model FLOPs per
// iteration therefore equal 72·B·s·l·h²·(1 + s/(6h) + V/(12·l·h)) for a dense GPT with 4h non-gated
// MLP (tested); with full recompute the hardware FLOPs are Narayanan's eq. (3),
// 96·B·s·l·h²·(1 + s/(6h) + V/(16·l·h)). MFU uses model FLOPs; HFU adds recompute.
// MLP: `gated_mlp` true = SwiGLU (three h×ffn matrices, Llama), false = two (Megatron GPT, 4h).
#include <string>
#include <vector>

#include "sim/model/fp8_casts.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim {

// host_copy: a copy between HBM and host memory over the GPU's host link (activation offload), timed
// by its bytes at ComputeParams::host_link; no math, no HBM time charged beside it.
enum class OpClass { gemm, attention, elementwise, host_copy };
const char* to_string(OpClass c);

// The matrix product behind a gemm or attention op, for back ends that run it (plansim-hw): one
// product is (m×k)·(k×n), `batch` of them side by side (attention: one per head and sequence);
// the op's flops are a whole number of such products (2·m·n·k·batch each: backward = 2, attention
// forward = 2 (QKᵀ, A·V), attention backward = 4). All zero for elementwise ops.
struct GemmDims {
  double m = 0, n = 0, k = 0, batch = 0;
  [[nodiscard]] double flops() const { return 2 * m * n * k * batch; }
};

// MoE expert GEMMs: one grouped GEMM over dims.batch local experts, dims.m (forward, dgrad) or dims.k
// (wgrad) tokens per expert. `dropless`: routing without capacity across EP ranks, so the compute
// model scales that token extent by moe_load_imbalance (the busiest rank's share).
struct ExpertGemm {
  bool grouped = false;
  bool tokens_in_k = false;
  bool dropless = false;
};

struct OpCost {
  std::string name;
  OpClass cls = OpClass::gemm;
  double flops = 0;       // per rank: model FLOPs (the count MFU uses)
  double hbm_bytes = 0;   // per rank, bytes read + written
  GemmDims dims{};        // gemm/attention: the product's shape (see GemmDims)
  // Executed work / flops (timing): attention: the fraction of query-key pairs the mask leaves
  // ((s+1)/2s causal) times flash backward's 5/4; padded expert GEMMs: capacity / routed tokens.
  double executed = 1;
  double backward_executed = 1;  // attention: its backward's executed / counted work (flash: 5/4)
  // HBM traffic of separate memory-bound kernels folded into this op, added to its time rather than
  // overlapped with its math: materialised attention's s×s scores between its products (see
  // layer_forward: the softmax and dropout kernels' passes, and the products' reads of P and dS).
  double unfused_bytes = 0;
  double backward_unfused_bytes = 0;  // the same for the op's backward (backward_of moves it in)
  // Materialised attention runs its products as cuBLAS batched GEMMs (Megatron 2021: torch.baddbmm for
  // QKᵀ, torch.bmm for A·V), timed by shape (ComputeModel::gemm_seconds), not at attention_efficiency:
  // `score_products` of `dims` (QKᵀ's shape: s × s outputs, K = head_dim) and `value_products` of the
  // (s × head_dim outputs, K = s) shape. Forward QKᵀ, A·V: 1 + 1; backward dP = dO·Vᵀ: 1, dV, dQ, dK: 3.
  // Both 0: the op is a flash kernel (attention_efficiency).
  int score_products = 0;
  int value_products = 0;
  // Flash attention: the exponentials its softmax evaluates (one per executed query-key score, forward;
  // the backward recomputes P = exp(S − LSE) once per score), timed on the GPU's special-function units
  // (ComputeParams::softmax_exp_rate). 0 for every other op (materialised attention's softmax is a
  // memory-bound kernel of its own).
  double exps = 0;
  ExpertGemm expert{};
  // A GEMM pipelined with a TP collective (Shard::tp_overlap_chunks): dims.m is one piece's tokens and
  // the op is token_chunks such pieces; its weight gradient (backward_of) runs whole (K = all tokens).
  int token_chunks = 1;
  // fp8 GEMMs: the quantisation kernels around the GEMM (sim/model/fp8_casts.hpp), run beside it and
  // charged as HBM time: `casts` run with this op; a forward GEMM also holds its backward's, which
  // backward_of moves into the data-gradient and weight-gradient ops.
  QuantiseCost casts{};
  QuantiseCost dgrad_casts{};
  QuantiseCost wgrad_casts{};
  double host_link_bytes = 0;  // host_copy: bytes over the host link
  [[nodiscard]] double executed_flops() const { return flops * executed; }
};

// How one layer is split across ranks.
struct Shard {
  int tp = 1;
  int cp = 1;
  int ep = 1;
  bool sequence_parallel = false;
  // The attention kernel (training.attention), which decides the executed work: flash skips masked
  // blocks and recomputes the scores in backward; materialised (2021 Megatron's fused softmax) runs
  // the full s×s products in both passes.
  bool flash_attention = true;
  // TP communication overlapped with the GEMMs beside it (training.overlap.tp_comm: Megatron's
  // userbuffers tp_comm_overlap, PyTorch's async TP): the collective is cut into tp ring steps, each
  // overlapped with the GEMM on one piece of the tokens, so qkv, attention_out, mlp_up and mlp_down
  // (forward and data gradient) run as tp GEMMs of t/tp tokens, timed by that shape (smaller tiles,
  // emptier waves); 1 = whole GEMMs.
  int tp_overlap_chunks = 1;
  // Micro-batches per iteration (fp8 delayed scaling casts the weights once per iteration).
  int micro_batches = 1;
  // The fraction of a weight each rank casts where ZeRO-3 gathers the weights in fp8 (CastSite::weight_shard).
  double fp8_weight_shard = 1;
  // The experts' TP width (ParallelSpec::expert_tp_size; 0 = tp). Below tp (MoE parallel folding) a rank
  // dispatches its sequence shard, t·expert_tp/tp tokens, and its experts are expert_ffn_hidden/expert_tp wide.
  int expert_tp = 0;
};

// The shard of every rank of a scenario's plan: tp, cp, ep, sequence parallelism, the attention kernel and
// the experts' TP width (the fields that follow the plan alone; the cost table adds its own).
Shard shard_of(const Scenario& s);

// The work a flash kernel executes per head / the head's work: FlashAttention-2 instantiates its kernels
// for head dimensions 32, 64, 96, 128, 160, 192, 224, 256 and runs a head on the smallest one that holds
// it, the extra columns predicated to zero but multiplied all the same (Dao-AILab/flash-attention
// csrc/flash_attn/src/static_switch.h, HEADDIM_SWITCH: `HEADDIM <= 96 -> kHeadDim = 96`, `<= 128 -> 128`, ...;
// flash_api.cpp rounds its buffers alike). 112 (MPT-30B) runs as 128: 8/7 the work; 80 (MPT-3B) as 96.
double flash_head_dim_padding(int64_t head_dim);

// Query-key pairs one sequence of length s computes under `a` (causal: s(s+1)/2; window w < s:
// w(w+1)/2 + (s−w)·w; full: s²).
double attention_pairs(const AttentionSpec& a, double s);
// The mean over the layers of attention_pairs when the window applies to one layer in window_every: the
// plan costs one attention kind for all layers, so each is charged the mean (exact for a stage holding
// whole cycles of window_every layers; otherwise off by under one layer's difference per stage).
double mean_attention_pairs(const AttentionSpec& a, double s);

// What a flash kernel executes for one sequence, in query-key pairs (FlashAttention-2/3 and cuDNN's
// fused attention alike): the pairs its mask leaves (mean_attention_pairs), plus
// - the masked half of the tiles on the diagonal: a tile of kFlashQueryTile query rows reads keys up
//   to its last row, so a causal row computes (tile − 1)/2 masked keys on average, a band's row
//   tile − 1 (both edges); FlashAttention-2's forward kernels tile 128 query rows for head
//   dimensions up to 128 (csrc/flash_attn/src/flash_fwd_launch_template.h, kBlockM = 128);
// - a fixed cost per query row and kernel call, the online softmax's rescale and the output's
//   write, as kFlashRowOverheadKeys more keys per row (`calls`: the kernel calls that see a row: 1,
//   or cp under context parallelism, whose ring runs one call per key chunk). 64 keys (half a 128-key tile)
//   reproduces the shape of FlashAttention-2's H100 curve at head dimension 128 (Shah et al., arXiv
//   2407.08608, Fig. 5, 16K tokens per batch): causal 191 / 260 / 298 / 319 / 333 / 335 TFLOP/s at 512 …
//   16K tokens is 0.57 / 0.78 / 0.89 / 0.95 / 0.99 / 1 of its long-sequence rate; this model gives
//   0.68 / 0.81 / 0.90 / 0.96 / 0.99 / 1 (tested), so the calibrated efficiency is the long-sequence one.
inline constexpr double kFlashQueryTile = 128;
inline constexpr double kFlashRowOverheadKeys = 64;
double flash_executed_pairs(const AttentionSpec& a, double s, int calls = 1);

// The forward ops of layer `layer` for a micro-batch of `batch` sequences on one rank, in two blocks
// (attention block, MLP/MoE block) so the plan can place the TP collectives between them.
// Bytes per element of the activations between kernels (norm and residual traffic, permutation, the
// tensors that TP/PP/CP/EP communication moves): the model dtype's, except fp8, whose activations stay
// bf16: Transformer Engine's FP8 recipes cast only the inputs of the linear layers' GEMMs to fp8 (TE docs,
// "Using FP8 with Transformer Engine": "the other operations ... are performed in higher precision"),
// and Megatron-Core's all-to-all token dispatcher moves the bf16 hidden states.
double activation_element_bytes(DType d);

struct LayerForward {
  std::vector<OpCost> attention;
  std::vector<OpCost> mlp;
  double activation_tokens = 0;  // tokens this rank processes (b·s/cp)
};
LayerForward layer_forward(const ModelSpec& m, int layer, int64_t batch, const Shard& sh);
// training.recompute: selective_op, torchtitan's per-op selective activation checkpointing
// (activation_checkpoint.mode = "selective", selective_ac_option = "op"; torchtitan
// torchtitan/parallelisms/parallelize_llama.py @ 004b314, `_save_list` and `_custom_policy`): inside each
// transformer block the outputs of aten.mm are saved except every second one (counted per block in
// the order the Llama block runs them: wq, wk, wv, wo, w1, w3, w2), and SDPA's and the TP
// reduce-scatter's outputs are saved; everything else is re-run in the backward, as far as the
// backward reads it (torch.compile drops the rest). These are the forward kernels re-run, in
// layer_forward's two blocks: the norms, wk, w3, the MLP activation (and, per block, the TP
// all-gather under sequence parallelism, which the plan adds). The fp8 linears of torchao dispatch
// aten.mm on their Float8 tensors and count alike.
LayerForward op_sac_recompute(const ModelSpec& m, int layer, int64_t batch, const Shard& sh);
// The forward kernels a layer's backward re-runs under each recompute mode, in layer_forward's two blocks:
// none nothing; selective (Megatron's) the attention core; selective_op op_sac_recompute; full the whole forward.
LayerForward recomputed_forward(const ModelSpec& m, Recompute r, int layer, int64_t batch, const Shard& sh);
std::vector<OpCost> embedding_forward(const ModelSpec& m, int64_t batch, const Shard& sh);
std::vector<OpCost> logits_forward(const ModelSpec& m, int64_t batch, const Shard& sh);  // output layer + loss

// Backward of a forward op list. `part`: both gradients, input gradient only (B), weight gradient only (W).
// A GEMM (t×k)·(k×n) gets its data gradient (t×n)·(n×k) and its weight gradient (k×t)·(t×n) as two
// ops with their own shapes (`both`: both, data gradient first), each the forward's FLOPs.
enum class BackwardPart { both, input, weight };
std::vector<OpCost> backward_of(const std::vector<OpCost>& forward, BackwardPart part);

double total_flops(const std::vector<OpCost>& ops);

struct ParamCount {
  double per_dense_layer = 0;  // attention + MLP + norms (+ biases)
  double per_moe_layer = 0;    // attention + router + all experts + norms
  double embedding = 0;        // token (+ learned position) embedding
  double output = 0;           // output projection (0 when tied)
  double final_norm = 0;
  double total = 0;
  double expert_params_per_moe_layer = 0;
};
ParamCount count_parameters(const ModelSpec& m);

// Model FLOPs of one iteration (no recompute), summed over our per-op counts for the whole batch.
double model_flops_per_iteration(const ModelSpec& m, int64_t global_batch);
// Narayanan et al. 2021 closed forms, for tests and the validation runner.
double megatron_model_flops(const ModelSpec& m, int64_t global_batch);      // 72·B·s·l·h²(1 + s/6h + V/12lh)
double megatron_eq3_flops(const ModelSpec& m, int64_t global_batch);        // 96·B·s·l·h²(1 + s/6h + V/16lh)

}  // namespace plansim
