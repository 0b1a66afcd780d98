#include "sim/topo/gpu_catalog.hpp"

#include <array>
#include <utility>

namespace plansim {
namespace {

// Sources (abbreviated in the rows below):
//  [T]  stas00/ml-engineering compute/accelerator/README.md @744d01e, "TFLOPS comparison table":
//       theoretical dense (no sparsity) TFLOPS per dtype; the book cites the NVIDIA/AMD spec page per row.
//  [M]  same book, "Accelerator memory size and speed" table: memory size (as vendors print) and TB/s.
//  [KA] glennklockwood.com/garden/processors/A100 (NVIDIA A100 datasheet): 108 SMs, 40 GB HBM2 1.555 TB/s,
//       80 GB HBM2e 2.039 TB/s.
//  [KH] glennklockwood.com/garden/processors/h100 (NVIDIA Hopper whitepaper): H100 SXM5 132 SMs.
//  [HP] archive-lib.hpctech.co.jp copy of NVIDIA's H100 spec table: H100 PCIe 114 SMs.
//  [W]  waredb.com RTX 4090 page (third-party aggregator, consistent with the Ada whitepaper's
//       FP16-with-FP32-accumulate figures): 165.15 TFLOP/s fp16/bf16, 330.30 fp8, 82.58 fp32, 24 GB 1008 GB/s.
//  [SB] NVIDIA DGX B200 / HGX B200: 148 SMs per B200 GPU (the multiProcessorCount the CUDA runtime reports;
//       two dies of 74 enabled SMs), the figure the simulator's GEMM wave quantisation uses.
//  [SL] NVIDIA L40S datasheet: 18,176 CUDA cores = 142 SMs × 128.
//  [SA] AMD Instinct MI300X datasheet: 304 compute units (the unit GEMM tiles spread over).
//  [P]  stas00/ml-engineering compute/accelerator/README.md, "Power consumption" table (vendor spec per row):
//       A100 SXM 400 W, A100 PCIe 300 W, H100 SXM 700 W, H200 SXM 700 W, B200 1000 W (max TGP), GB200
//       1200 W (per-GPU maximum), B300 1000 W (max TGP), GB300 1400 W (per-GPU maximum), L40S 350 W,
//       MI300X 750 W (typical board power, peak).
//  [PP] NVIDIA H100 PCIe product brief PB-11133-001_v02: "maximum thermal design power (TDP) level of 350 W".
// Memory capacities are the vendors' "GB", which for HBM/GDDR capacity is binary (GiB): an H100
// "80GB" has 5 stacks x 16 GiB. sm_count 0 = not stated by any source we hold. tdp_w: the rated board
// power the peaks assume (README "Power limit"); 0 = not stated by any source we hold.
struct Row {
  const char* name;
  double fp32, tf32, fp16, bf16, fp8;  // TFLOP/s dense; 0 = not supported / not listed
  double mem_gib;
  double mem_tb_s;
  int sms;
  double tdp_w;
};

constexpr std::array kRows = {
    // A100 SXM: [T] 19.5/156/312/312, no fp8; 40 GB 1.555 TB/s [KA]; 108 SMs [KA]; 400 W [P].
    Row{"A100-SXM-40GB", 19.5, 156, 312, 312, 0, 40, 1.555, 108, 400},
    // A100 SXM 80GB: [T]; 80 GB HBM2e 2.039 TB/s [KA] ([M] rounds to 2.00); 108 SMs [KA].
    Row{"A100-SXM-80GB", 19.5, 156, 312, 312, 0, 80, 2.039, 108, 400},
    // A100 PCIe 80GB: [T] (same peaks as SXM); 80 GB 1.94 TB/s [M]; 108 SMs [KA].
    Row{"A100-PCIe-80GB", 19.5, 156, 312, 312, 0, 80, 1.94, 108, 300},
    // H100 SXM: [T] 67/494.5/989/989/1979; 80 GB HBM3 3.35 TB/s [M]; 132 SMs [KH].
    Row{"H100-SXM-80GB", 67, 494.5, 989, 989, 1979, 80, 3.35, 132, 700},
    // H100 PCIe: [T] 51/378/756/756/1513; 80 GB 2.00 TB/s [M]; 114 SMs [HP]; 350 W [PP].
    Row{"H100-PCIe", 51, 378, 756, 756, 1513, 80, 2.0, 114, 350},
    // H200 SXM: [T] same peaks as H100 SXM; 141 GB HBM3e 4.8 TB/s [M]; SMs: same GH100 part as H100 SXM
    // (the book's MAMF table notes "H200 is the same" for the H100 row) -> 132 [KH].
    Row{"H200-SXM-141GB", 67, 494.5, 989, 989, 1979, 141, 4.8, 132, 700},
    // B200 SXM: [T] 80/1125/2250/2250/4500; 180 GB HBM3e 8.0 TB/s [M]; 148 SMs [SB].
    Row{"B200", 80, 1125, 2250, 2250, 4500, 180, 8.0, 148, 1000},
    // GB200 (per GPU): [T] 80/1250/2500/2500/5000; 186 GB HBM3e 8.0 TB/s [M].
    Row{"GB200", 80, 1250, 2500, 2500, 5000, 186, 8.0, 0, 1200},
    // B300 SXM (Blackwell Ultra): [T] 80/1125/2250/2250/4500 (the B200's dense BF16/FP8 peaks); 288 GB HBM3e
    // 8.0 TB/s [M]; SMs not disclosed [T]; 1000 W maximum TGP [P].
    Row{"B300", 80, 1125, 2250, 2250, 4500, 288, 8.0, 0, 1000},
    // GB300 (per GPU): [T] 80/1250/2500/2500/5000; 1400 W per-GPU maximum [P]. Memory: the book's memory table
    // has no GB300 row; 288 GB HBM3e 8.0 TB/s as the B300 [M] (assumption: the same Blackwell Ultra part).
    Row{"GB300", 80, 1250, 2500, 2500, 5000, 288, 8.0, 0, 1400},
    // RTX 4090: [W]; tf32 not listed there. 128 SMs is NVIDIA's published AD102 configuration for the 4090
    // (not in our reference files; stated here for completeness).
    Row{"RTX-4090", 82.58, 0, 165.15, 165.15, 330.30, 24, 1.008, 128, 0},
    // L40S: [T] 91.6/183/362/362/733; 48 GB GDDR6 0.86 TB/s [M].
    Row{"L40S", 91.6, 183, 362, 362, 733, 48, 0.86, 142, 350},  // 142 SMs [SL]
    // AMD MI300X: [T] 163.4/653.7/1300/1300/2610; 192 GB HBM3 5.3 TB/s [M].
    Row{"MI300X", 163.4, 653.7, 1300, 1300, 2610, 192, 5.3, 304, 750},  // 304 CUs [SA]
};

GpuSpec to_spec(const Row& r) {
  GpuSpec s;
  s.model = r.name;
  const std::pair<DType, double> peaks[] = {
      {DType::fp32, r.fp32}, {DType::tf32, r.tf32}, {DType::fp16, r.fp16}, {DType::bf16, r.bf16}, {DType::fp8, r.fp8}};
  for (auto [d, v] : peaks)
    if (v > 0) s.peak_dense[d] = TFLOPs_per_s(v);
  s.hbm_capacity = GiB(r.mem_gib);
  s.hbm_bandwidth = GBps(r.mem_tb_s * 1000.0);
  s.sm_count = r.sms;
  s.tdp_watts = r.tdp_w;
  return s;
}

}  // namespace

std::optional<GpuSpec> find_gpu_model(std::string_view name) {
  for (const Row& r : kRows)
    if (name == r.name) return to_spec(r);
  return std::nullopt;
}

std::optional<std::string> catalog_model_for_device(std::string_view cuda_name) {
  // cudaDeviceProp::name as the drivers report it for the catalog's parts (nvidia-smi -L prints the same).
  static constexpr std::pair<std::string_view, std::string_view> kNames[] = {
      {"NVIDIA A100-SXM4-40GB", "A100-SXM-40GB"}, {"NVIDIA A100-SXM4-80GB", "A100-SXM-80GB"},
      {"NVIDIA A100 80GB PCIe", "A100-PCIe-80GB"}, {"NVIDIA H100 80GB HBM3", "H100-SXM-80GB"},
      {"NVIDIA H100 PCIe", "H100-PCIe"},          {"NVIDIA H200", "H200-SXM-141GB"},
      {"NVIDIA B200", "B200"},                    {"NVIDIA GeForce RTX 4090", "RTX-4090"},
      {"NVIDIA L40S", "L40S"},
  };
  for (const auto& [cuda, model] : kNames)
    if (cuda_name == cuda) return std::string(model);
  return std::nullopt;
}

std::vector<std::string> gpu_model_names() {
  std::vector<std::string> names;
  for (const Row& r : kRows) names.emplace_back(r.name);
  return names;
}

}  // namespace plansim
