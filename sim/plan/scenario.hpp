#pragma once
// A training scenario: model + parallel plan + schedule + training settings (the topology is loaded
// separately, see io/scenario_loader.hpp). Plain data, validated by the loader; no YAML here.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/model/fp8_casts.hpp"
#include "sim/plan/finetune_spec.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim {

struct MoeSpec {
  int experts = 0;
  int top_k = 1;
  int64_t expert_ffn_hidden = 0;
  int every = 1;  // every `every`-th layer is an MoE layer (1 = all)
  // Token-dropping with padding: each expert processes exactly ceil(capacity_factor · tokens · top_k /
  // experts) tokens from each source rank (Megatron's drop-and-pad); unset = dropless (the compute
  // model's moe_load_imbalance then charges the busiest expert-parallel rank).
  std::optional<double> capacity_factor{};
};

// Self-attention mask: causal (GPT/Llama training; flash kernels skip the masked blocks) or full
// (bidirectional); `window` > 0 = sliding window (each query sees the last `window` keys, itself
// included; causal only).
struct AttentionSpec {
  bool causal = true;
  int64_t window = 0;
  // The window applies to one layer in `window_every` (gpt-oss: 2, banded and dense layers alternate),
  // the others attend to the whole causal context; 1 = every layer.
  int window_every = 1;
  // ALiBi (model.attention.bias: alibi; MPT, BLOOM): a per-head linear bias added to every score in place of
  // rotary or learned positions. A flash kernel applies it inside its softmax stage, which makes it a kernel
  // configuration of its own: its rate is the profile's alibi_attention_efficiency where it has one.
  bool alibi = false;
};

struct ModelSpec {
  int layers = 0;
  int64_t hidden = 0;
  int heads = 0;
  int kv_heads = 0;         // GQA: < heads; default = heads (MHA)
  int64_t ffn_hidden = 0;   // default 4·hidden
  int64_t vocab = 0;
  int64_t seq_len = 0;
  DType dtype = DType::bf16;
  // How the stack scales fp8 GEMM operands (model.fp8_scaling; sim/model/fp8_casts.hpp), which decides
  // the quantisation kernels charged around each fp8 GEMM; no effect on other dtypes.
  Fp8Scaling fp8_scaling = Fp8Scaling::delayed;
  bool gated_mlp = false;   // SwiGLU (3 matrices) vs Megatron GPT's non-gated 4h MLP (2 matrices)
  bool bias = false;        // linear-layer biases (GPT-2/3, Megatron GPT: true)
  bool learned_positions = false;  // learned position embedding (s·h params) vs RoPE (none)
  bool tied_embeddings = false;    // output layer shares the input embedding
  bool dropout = false;            // hidden and attention dropout (Megatron GPT 2021: true); activation memory
  AttentionSpec attention;
  std::optional<MoeSpec> moe;
  // model.head_dim: the width of one attention head; 0 = hidden / heads. Qwen3 and gpt-oss set it apart
  // from hidden / heads, so the query width heads·head_dim differs from hidden.
  int64_t head_dim_override = 0;

  [[nodiscard]] int64_t head_dim() const { return head_dim_override > 0 ? head_dim_override : hidden / heads; }
  [[nodiscard]] int64_t q_width() const { return static_cast<int64_t>(heads) * head_dim(); }  // Q and attention-output width
  [[nodiscard]] bool is_moe_layer(int layer) const { return moe && (layer % moe->every) == moe->every - 1; }
};

// Parallel dimensions; `order` maps ranks innermost first (EP subdivides DP, as in Megatron).
enum class Dim { tp, cp, ep, dp, pp };
const char* to_string(Dim d);
std::optional<Dim> dim_from_string(const std::string& s);

struct ParallelSpec {
  int tp = 1;
  int pp = 1;
  int dp = 1;  // data-parallel degree, including the ep ranks (ep divides dp unless the experts fold)
  int cp = 1;
  int ep = 1;
  // Expert tensor parallelism (Megatron-Core's expert_tensor_parallel_size). 0: the experts are split as
  // the dense layers are (tp), and EP subdivides DP. 1 with tp > 1: MoE parallel folding (Megatron-Core
  // >= 0.10, Liu et al., arXiv 2504.14960): the MoE layers run on their own grid over the same ranks of a
  // pipeline stage, expert TP innermost, then EP, then expert DP (RankMapping::expert_group), so EP may
  // span the TP, CP and DP ranks (ep divides tp·cp·dp); each rank dispatches its sequence-parallel shard
  // of tokens and its experts hold whole FFN widths; no TP collective runs around the expert block.
  int expert_tp = 0;
  bool sequence_parallel = false;
  int zero = 0;  // 0 = DDP, 1 = optimizer states sharded, 2 = + gradients, 3 = + parameters (FSDP)
  std::array<Dim, 5> order{Dim::tp, Dim::cp, Dim::ep, Dim::dp, Dim::pp};
  // Layers per virtual pipeline stage (pp·v entries, summing to model.layers); empty = balanced
  // (see plan/layer_partition.hpp).
  std::vector<int> stage_layers;
  // `pipeline_split`: Megatron-Core's account_for_embedding_in_pipeline_split /
  // account_for_loss_in_pipeline_split: the embedding (first virtual stage) and the loss (last) each
  // count as one layer slot of the balanced split, so those stages hold one transformer layer fewer
  // (zero where a slot is one layer: Llama 3 405B's 126 + 2 over 16 × 8).
  bool split_embedding = false;
  bool split_loss = false;
  // `ep_dispatcher` (plan/ep_dispatch.hpp): alltoall (flat, top_k copies per token) or hierarchical
  // (DeepEP / HybridEP: once per destination NVLink domain, then NVLink). `domain_gpus`: GPUs per
  // NVLink domain (a server, or an NVL72 rack's trays), from the topology (the loader sets it,
  // Topology::gpus_per_island), which the hierarchical dispatcher splits the EP group by.
  enum class EpDispatcher { alltoall, hierarchical } ep_dispatcher = EpDispatcher::alltoall;
  int domain_gpus = 0;
  [[nodiscard]] int world() const { return tp * pp * dp * cp; }
  // Ranks holding the same dense weights, over which gradients are reduced and ZeRO shards: DP (EP inside
  // it) × CP (plan/rank_mapping.hpp).
  [[nodiscard]] int weight_replicas() const { return dp * cp; }
  // The experts' TP width, and whether the MoE layers fold onto their own grid (expert_tp above).
  [[nodiscard]] int expert_tp_size() const { return expert_tp > 0 ? expert_tp : tp; }
  [[nodiscard]] bool experts_folded() const { return expert_tp_size() != tp; }
  // Ranks holding the same expert weights (expert DP): tp·cp·dp / (expert_tp·ep); dp·cp / ep unfolded.
  [[nodiscard]] int expert_replicas() const { return tp * cp * dp / (expert_tp_size() * ep); }
};

struct ScheduleSpec {
  std::string kind = "1f1b";  // a name from the schedule registry (sched/registry.hpp)
  int virtual_stages = 1;
  // Megatron-Core's EP all-to-all overlap (plan/a2a_overlap.hpp): steady-state F and B run merged.
  bool moe_a2a_overlap = false;
};

// selective: Megatron's (the attention core re-run in the backward); selective_op: torchtitan's per-op
// policy (sim/model/transformer.hpp, op_sac_recompute); full: each layer's whole forward re-run.
enum class Recompute { none, selective, selective_op, full };
const char* to_string(Recompute r);

struct OverlapSpec {
  bool grad_reduce = true;    // bucketed DP reduction during backward
  bool param_gather = true;   // ZeRO/FSDP parameter all-gather prefetched under forward compute
  bool tp_comm = false;       // TP collectives overlapped with the neighbouring GEMMs
};

// Which attention kernel the training stack runs. flash: the GPU generation's own fused kernel
// (FlashAttention-2 on Ampere; cuDNN fused attention / FlashAttention-3 on Hopper and later: Transformer
// Engine, PyTorch SDPA from 2.5 on H100), at the profile's attention_efficiency. flash2: FlashAttention-2
// on a GPU after Ampere (a stack from before Hopper-native kernels, e.g. llm-foundry's 2023 H100 tables),
// at the profile's flash2_attention_efficiency. materialised: 2021 Megatron's fused softmax between two
// cuBLAS batched GEMMs, timed by shape; keeps the s×s scores unless recompute drops them.
enum class AttentionKernel { flash, flash2, materialised };

struct TrainingSpec {
  int64_t global_batch = 0;   // sequences per iteration
  int micro_batch = 1;        // sequences per micro-batch per pipeline
  Recompute recompute = Recompute::none;
  AttentionKernel attention = AttentionKernel::flash;
  [[nodiscard]] bool materialised_attention() const { return attention == AttentionKernel::materialised; }
  Bytes grad_bucket = MiB(25);
  OverlapSpec overlap;
  // Bytes per parameter for the memory model. Mixed-precision Adam: 2 (bf16 weights) + 2 (grads) +
  // 12 (fp32 master + m + v) = 16. The seeds' simplification uses optimizer_bytes 4 (2+2+4 = 8).
  double weight_bytes = 2;
  double grad_bytes = 2;
  double optimizer_bytes = 12;
  FinetuneSpec finetune;      // what is trained (plan/finetune_spec.hpp); default: everything
  // Activation CPU offload (Megatron-Core `cpu_offloading_num_layers`, Transformer Engine's CPU offload
  // context): the first N transformer layers of each model chunk copy their saved activations to host
  // memory after their forward and back before their backward (a chunk of k layers: min(N, k − 1)).
  // README "Scenario YAML", plan/rank_builder_layers.cpp (timing), model/memory.cpp (memory).
  int activation_offload_layers = 0;
};

// Calibration of the compute model (sim/compute/compute_model.hpp documents each default).
struct ComputeOverrides {
  std::optional<double> matmul_tflops;          // achievable dense matmul TFLOP/s (MAMF)
  std::optional<std::array<double, 3>> mamf_shape;  // M, N, K of the GEMM MAMF was measured on
  std::optional<int> sm_count;                  // SMs the GEMM tiles spread over (waves)
  std::optional<double> gemm_tile_k_bytes;      // K depth of one main-loop step, bytes
  std::optional<Time> gemm_tile_latency;        // fixed cost per output tile beside its epilogue
  std::optional<double> gemm_feed_ratio;        // operand feed / what the 256×128 tile needs
  std::optional<double> sustained_factor;       // fraction of MAMF a training step sustains
  std::optional<double> fp8_gemm_factor;        // fp8 GEMMs: further fraction of the fp8 MAMF kept in training
  std::optional<double> grouped_gemm_efficiency;  // MoE grouped GEMM rate / dense GEMM rate
  std::optional<double> moe_load_imbalance;     // busiest EP rank's routed tokens / mean (dropless)
  std::optional<double> attention_efficiency;   // fraction of the matmul rate flash attention reaches
  std::optional<double> flash2_attention_efficiency;  // the same for FlashAttention-2 (training.attention flash2)
  std::optional<double> alibi_attention_efficiency;   // the same for a flash kernel with ALiBi (model.attention.bias)
  std::optional<double> hbm_efficiency;         // fraction of HBM bandwidth memory-bound kernels reach
  std::optional<Time> launch_overhead;          // per kernel
  std::optional<Time> expert_launch_overhead;   // host time per local expert per grouped expert GEMM
  std::optional<double> comm_slowdown;          // compute slowdown while a comm kernel runs on the GPU
  std::optional<bool> softmax_exp_cost;         // charge flash attention's softmax exponentials (default off)
};

// Calls fn(a.key, b.key) for every key of ComputeOverrides (calibration profiles merge through this).
// A new key must be added here and to the shape below; the size check fails to compile until it is.
template <class A, class B, class Fn>
void for_each_compute_key(A& a, B& b, Fn&& fn) {
  fn(a.matmul_tflops, b.matmul_tflops);
  fn(a.mamf_shape, b.mamf_shape);
  fn(a.sm_count, b.sm_count);
  fn(a.gemm_tile_k_bytes, b.gemm_tile_k_bytes);
  fn(a.gemm_tile_latency, b.gemm_tile_latency);
  fn(a.gemm_feed_ratio, b.gemm_feed_ratio);
  fn(a.sustained_factor, b.sustained_factor);
  fn(a.fp8_gemm_factor, b.fp8_gemm_factor);
  fn(a.grouped_gemm_efficiency, b.grouped_gemm_efficiency);
  fn(a.moe_load_imbalance, b.moe_load_imbalance);
  fn(a.attention_efficiency, b.attention_efficiency);
  fn(a.flash2_attention_efficiency, b.flash2_attention_efficiency);
  fn(a.alibi_attention_efficiency, b.alibi_attention_efficiency);
  fn(a.hbm_efficiency, b.hbm_efficiency);
  fn(a.launch_overhead, b.launch_overhead);
  fn(a.expert_launch_overhead, b.expert_launch_overhead);
  fn(a.comm_slowdown, b.comm_slowdown);
  fn(a.softmax_exp_cost, b.softmax_exp_cost);
}
namespace detail {
struct ComputeOverridesShape {  // the keys for_each_compute_key visits, in order
  std::optional<double> a;
  std::optional<std::array<double, 3>> b;
  std::optional<int> c;
  std::optional<double> d;
  std::optional<Time> e;
  std::optional<double> f, g, g8, h, i, j, j2, j3, k;
  std::optional<Time> l, l2;
  std::optional<double> m;
  std::optional<bool> n;
};
}  // namespace detail
static_assert(sizeof(ComputeOverrides) == sizeof(detail::ComputeOverridesShape),
              "ComputeOverrides gained a key: add it to for_each_compute_key");

struct NcclModelParams;  // sim/coll/nccl_model.hpp

// One calibration profile a run uses (sim/calib/profile.hpp; README "Calibration profiles").
struct CalibrationLayer {
  std::string origin;  // shipped | topology | scenario | command line
  std::string file;    // the profile's file ("shipped:validate/h100/profile.yaml" for built-in ones)
  std::string name;    // the profile's `name`
  std::string source;  // one line of provenance
};

// The profiles behind a scenario's figures, least specific first. `Scenario::compute` already holds the
// merged compute keys (each from the most specific layer that sets it, the scenario's own `compute:`
// section last); the NCCL model's parameters come whole from the most specific layer that has them.
struct ScenarioCalibration {
  std::vector<CalibrationLayer> layers;
  std::shared_ptr<const NcclModelParams> collectives;  // null: the NCCL model's documented defaults
  std::string collectives_from;                        // file of the layer that gave them
};

struct Scenario {
  std::string name;
  std::optional<int> nodes;
  ModelSpec model;
  ParallelSpec parallel;
  ScheduleSpec schedule;
  TrainingSpec training;
  ComputeOverrides compute;
  ScenarioCalibration calibration;

  // Micro-batches per iteration per pipeline: global_batch / (micro_batch · dp).
  [[nodiscard]] int micro_batches() const {
    return static_cast<int>(training.global_batch / (training.micro_batch * static_cast<int64_t>(parallel.dp)));
  }
  [[nodiscard]] double tokens_per_iteration() const {
    return static_cast<double>(training.global_batch) * static_cast<double>(model.seq_len);
  }
};

}  // namespace plansim
