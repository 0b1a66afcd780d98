#pragma once
// Time of one op on one GPU: max(work / achievable rate, HBM bytes / achievable bandwidth) + a kernel
// launch overhead. The work is what the kernel executes (OpCost::executed_flops: causal flash attention
// skips the masked half), not the model FLOPs MFU counts.
//
// GEMMs are timed by shape, as the tensor cores run them (NVIDIA, "Matrix Multiplication Background
// User's Guide", DU-09799-001, Sec. 2.3 "Typical tile dimensions in cuBLAS" and Ch. 3 "Dimension
// quantization effects"): the output is cut into tm×tn tiles (M and N rounded up to the tile: tile
// quantisation), one tile per SM at a time, so the tiles run in ceil(tiles / SMs) waves and the last
// wave may be partly empty (wave quantisation); each tile walks K in steps of tk (K rounded up to tk)
// and pays a fixed cost per tile (its epilogue writing the tm×tn output at the SM's share of HBM
// bandwidth, plus `gemm_tile_latency`), which makes thin K and small GEMMs slow. The candidate tiles
// are cuBLAS's (the guide's list: 256×128, 128×256, 128×128, 256×64, 64×256, 128×64, 64×128, 64×64);
// the fastest is chosen, as cuBLAS's heuristics would. tk = `gemm_tile_k_bytes` / element size
// (128 B: CUTLASS's Hopper/Ampere 128-byte swizzled shared-memory K block = 64 bf16, 128 fp8
// elements). Smaller tiles reuse each operand byte less ((tm + tn)/(tm·tn) bytes per FLOP): their
// main loop runs at min(1, gemm_feed_ratio · intensity(tile) / intensity(256×128)) of the largest
// tile's rate (the guide: "larger tiles ... are more efficient"); gemm_feed_ratio 1 = the operand
// feed exactly keeps up with the 256×128 tile.
// Where the tiles leave the last wave partly empty, the kernel may instead deal the tiles' K steps
// evenly to the SMs (stream-K: Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense
// Matrix-Matrix Multiplication on the GPU", PPoPP 2023; CUTLASS 3's Hopper stream-K tile scheduler;
// cuBLASLt's split-K): ceil(tiles · k_steps / SMs) steps per SM, ceil(tiles / SMs) epilogues, and one
// split tile per SM to fix up (its fp32 partial written to HBM and read back: the paper's "at most one
// fixup per CTA"); the faster of the two schedules is taken. Without it no per-SM rate at or below the
// hardware's peak could time the fp8 MAMF shape (1280×4096×12032: 160 tiles of 256×128 on 132 SMs, two
// waves, the second 28/132 full) at MAMF: the anchor would need ~2,400 TFLOP/s of fp8 main loop, above
// H100's 1,979 dense peak (tested), and every full-wave fp8 GEMM would run 1.65 × faster than that shape.
//
// The per-SM main-loop rate is anchored on the measured MAMF (Stas Bekman's mamf-finder "Maximum
// Achievable Matmul FLOPS", stas00/ml-engineering hardware table): it is chosen so that the model
// times the shape MAMF was measured on (`mamf_shape`) at exactly MAMF. A training step then runs at
// `sustained_factor` of that (power and clock limits, NCCL kernels sharing the GPU; MAMF is an
// isolated best case), times `power_clock_factor` where the GPU runs below its rated power; flash attention at attention_efficiency · sustained_factor · MAMF (materialised
// attention's products are cuBLAS batched GEMMs, timed by shape like any GEMM); MoE expert GEMMs
// are grouped GEMMs over the local experts, at grouped_gemm_efficiency of the dense rate, with the
// busiest expert-parallel rank's tokens = moe_load_imbalance × the mean where routing is dropless.
//
// Defaults (ComputeParams::defaults): MAMF bf16/fp16 (best shape) A100-SXM 271.2 (1024×10240×5120),
// A100-PCIe 252.9 (2048×5120×6144), H100/H200 794.5 (2048×2048×13312), GH200 828.6 (1024×15360×4096),
// B200 1745 (1792×16128×3072), B300 1769 (12288×18432×1024); fp8 H100/H200 1453.4 (1280×4096×12032,
// the H200 row), GH200 1535 (1024×14336×14336), B200 3432.5 (15360×4096×3072); other GPUs/dtypes
// 0.8 × peak at 8192×8192×8192. sm_count from the GPU spec (0 = unknown: no wave quantisation).
// gemm_tile_k_bytes 128, gemm_tile_latency 0 (no source: calibration fits it), gemm_feed_ratio 1,
// sustained_factor 1, grouped_gemm_efficiency 1, moe_load_imbalance 1 (no source for other
// values: calibration fits them), attention_efficiency 0.75, hbm_efficiency 0.85, launch_overhead
// 2 us, expert_launch_overhead 0 (calibration fits it), comm_slowdown 0.1 (compute runs 10 % slower while a communication kernel shares the SMs).
// Every parameter can be set in the scenario's `compute:` section (calibration).
#include <array>

#include "sim/core/units.hpp"
#include "sim/model/transformer.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim {

struct ComputeParams {
  FlopRate matmul;                 // MAMF for the model's dtype
  // The rate attention's products run at: MAMF of the model's dtype, except fp8, whose attention runs in
  // bf16 (Transformer Engine's FP8 recipes quantise the linear layers; FP8 attention is opt-in).
  FlopRate attention_matmul;
  GemmDims mamf_shape{8192, 8192, 8192, 1};  // the shape MAMF was measured on (m, n, k)
  int sm_count = 0;                // 0 = unknown: tiles are not quantised into waves
  DType dtype = DType::bf16;       // element size for tk; fp32/tf32 write 4-byte outputs, others 2
  double gemm_tile_k_bytes = 128;
  Time gemm_tile_latency = Time::zero();
  double gemm_feed_ratio = 1.0;
  // A tile's epilogue (its output written to HBM) runs under the next tile's main loop: a tile costs
  // max(epilogue, main loop) instead of their sum. Hopper's and Blackwell's cuBLAS/CUTLASS GEMMs are
  // persistent warp-specialized kernels (a producer warp group's TMA loads and a consumer's TMA store
  // beside the other consumer's MMAs: CUTLASS 3 "ping-pong"); Ampere's run the epilogue after the loop.
  // From the GPU (persistent_gemm_kernels), not a `compute:` key.
  bool epilogue_overlap = false;
  double sustained_factor = 1.0;
  // The tensor-core clock under the topology's power limit relative to the TDP's (GpuSpec::
  // power_clock_factor, sim/topo/power_clock.hpp; 1 uncapped): scales every FLOP rate beside
  // sustained_factor, not the HBM bandwidth. Not a `compute:` key: it follows from `node.power_limit`.
  double power_clock_factor = 1.0;
  // fp8 GEMMs keep a further fraction of the fp8 MAMF in training (1 for other dtypes): the MAMF burst
  // is measured below the power limit that twice the bf16 rate reaches. The cast kernels around each fp8
  // GEMM are charged apart, as HBM time (OpCost::casts, sim/model/fp8_casts.hpp).
  double fp8_gemm_factor = 1.0;
  double grouped_gemm_efficiency = 1.0;
  double moe_load_imbalance = 1.0;
  double attention_efficiency = 0.75;
  // Exponentials per second a flash kernel's softmax evaluates (0 = not charged): the special-function
  // units' MUFU.EX2 rate, 16 per SM per clock through Hopper and Blackwell, 32 on Blackwell Ultra (NVIDIA,
  // "Making Softmax More Efficient with NVIDIA Blackwell Ultra": "doubling SFU throughput over the standard
  // NVIDIA Blackwell architecture"), taken as attention_matmul × softmax_exps_per_tensor_flop(gpu) (both
  // units at the same clock). A flash kernel's softmax sits between its two products of a tile (BMM1 →
  // softmax → BMM2), so its time adds to theirs: attention = work / (attention rate · efficiency) +
  // exps / softmax_exp_rate, both at the sustained clock. Charged only with the `compute:` key
  // `softmax_exp_cost: true` (default off): measured on an H200 (validate/measured/h200/README.md) it
  // describes a training step's attention by head dimension better, but the shipped profiles are fitted
  // without it. The rate itself is the GPU's, not a key.
  FlopRate softmax_exp_rate;
  bool softmax_exp_cost = false;
  // FlashAttention-2 on a GPU after Ampere (TrainingSpec::attention flash2); unset: attention_efficiency.
  std::optional<double> flash2_attention_efficiency;
  // A flash kernel (flash or flash2) on a model with ALiBi (AttentionSpec::alibi): the bias is computed in
  // the kernel's softmax stage, a configuration whose rate the plain kernels' measurements do not give;
  // unset: the kernel's own efficiency.
  std::optional<double> alibi_attention_efficiency;
  double hbm_efficiency = 0.85;
  Rate hbm;
  Time launch_overhead = Time::us(2);
  // Host time per local expert of each grouped expert GEMM (forward, dgrad, wgrad), exposed on the GPU's
  // timeline. Transformer Engine's GroupedLinear takes the per-expert token counts as a host list
  // (Megatron-Core's TEGroupedMLP: `tokens_per_expert.tolist()`, a device-to-host copy that waits for the
  // router and the token exchange), then issues each expert's GEMM and, in fp8, its quantisation kernels
  // from Python: the GPU's queue is empty at that point, so the host's per-expert issue time is on the
  // critical path wherever an expert's kernels are shorter than issuing them (many small experts). Charged
  // as local experts × this per grouped GEMM op, added to its time. 0 by default (no source): calibration
  // fits it (`plansim calibrate --runs --fit expert_launch_overhead`).
  Time expert_launch_overhead = Time::zero();
  double comm_slowdown = 0.1;
  // Per GPU, per direction: the host link a host_copy op crosses (Topology::host_link_bandwidth). Not a
  // `compute:` key: it follows from the topology; 0 = unknown (a host copy then takes no time).
  Rate host_link;

  static ComputeParams defaults(const GpuSpec& gpu, DType dtype);
  [[nodiscard]] ComputeParams with(const ComputeOverrides& o) const;
  // The defaults for the scenario's dtype with its `compute:` overrides, flash attention at the
  // efficiency of the kernel the scenario names (training.attention).
  static ComputeParams for_scenario(const GpuSpec& gpu, const Scenario& s);
};

// Best measured matmul TFLOP/s for a GPU model name and dtype (0 when not in the table), and the
// shape it was measured on.
double mamf_tflops(const std::string& gpu_model, DType dtype);
GemmDims mamf_best_shape(const std::string& gpu_model, DType dtype);
// Hopper and Blackwell GPUs (H100, H200, GH200, B200, GB200, B300): ComputeParams::epilogue_overlap.
bool persistent_gemm_kernels(const std::string& gpu_model);
// Exponentials per dense bf16 tensor-core FLOP at equal clocks: MUFU.EX2 per SM per clock (CUDA C++
// Programming Guide, arithmetic instruction throughput: 16 for compute capability 8.x and 9.0; 16 on
// Blackwell, 32 on Blackwell Ultra, NVIDIA's Blackwell Ultra softmax post) over dense bf16 FLOPs per SM per
// clock (A100 312 TFLOP/s over 108 SMs at 1.41 GHz = 2048; H100 SXM 989.4 over 132 at 1.83 GHz = 4096;
// B200 8192): A100 1/128, Hopper 1/256, B200/GB200 1/512, B300/GB300 1/256; 0 for other GPUs (not charged).
double softmax_exps_per_tensor_flop(const std::string& gpu_model);
// The catalog GPU whose measurement mamf_tflops returns for this model ("" when the row has no catalog
// entry): H200 reads the H100 SXM row (equal peaks: "H200 is the same"), an H100 PCIe the H100 SXM row,
// GB300 (no measurement held) the B300 row.
std::string mamf_measured_on(const std::string& gpu_model);
// The MAMF a GPU reaches: its table row scaled by the GPU's dense peak over the peak of the GPU the row
// was measured on (an H100 PCIe: 794.5 × 756/989; GB300: the B300's × 2500/2250, the Blackwell Ultra part
// rated at 1,400 W), 1 for a GPU measured itself or with equal peaks (H200).
// The table row unscaled where either peak is unknown, 0 where the table has none.
double mamf_for_gpu(const GpuSpec& gpu, DType dtype);

// cuBLAS's tile shapes (tm, tn), largest first (the guide, Sec. 2.3).
inline constexpr std::array<std::array<int, 2>, 8> kGemmTiles = {
    {{256, 128}, {128, 256}, {128, 128}, {256, 64}, {64, 256}, {128, 64}, {64, 128}, {64, 64}}};

class ComputeModel {
 public:
  explicit ComputeModel(ComputeParams p);
  [[nodiscard]] Time op_time(const OpCost& op) const;
  [[nodiscard]] Time ops_time(const std::vector<OpCost>& ops) const;
  [[nodiscard]] const ComputeParams& params() const { return p_; }
  // One GEMM product of shape d (batch = products side by side, e.g. a grouped GEMM's experts) at
  // `rate_scale` of the sustained rate: the fastest candidate tile's waves × per-tile time. No launch
  // overhead, no HBM roofline.
  [[nodiscard]] double gemm_seconds(const GemmDims& d, double rate_scale = 1.0) const;
  // Main-loop FLOP/s of one SM on the largest tile at MAMF (before sustained_factor).
  [[nodiscard]] double sm_rate() const { return sm_rate_; }

 private:
  [[nodiscard]] double gemm_seconds_at(const GemmDims& d, double sm_rate) const;
  // Fraction of the MAMF-anchored FLOP rates a training step runs at: sustained × power-limited clock.
  [[nodiscard]] double flop_factor() const { return p_.sustained_factor * p_.power_clock_factor; }
  ComputeParams p_;
  double sm_rate_ = 0;
};

}  // namespace plansim
