#include "hw/bench_gemm.hpp"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <stdexcept>

#include "hw/bench_output.hpp"
#include "hw/check.hpp"
#include "hw/cuda_raii.hpp"
#include "hw/device.hpp"
#include "hw/pattern.hpp"

namespace plansim::hw {
namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;
constexpr std::uint64_t kSeedA = 1, kSeedB = 2;
constexpr int kSamples = 64;  // result entries checked on the host per shape

struct Types {
  cudaDataType_t ab, cd;
  cublasComputeType_t compute;
  std::size_t ab_bytes, cd_bytes;
};
Types types_of(GemmDtype d) {
  switch (d) {
    case GemmDtype::kBf16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2};
    case GemmDtype::kFp16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2};
    case GemmDtype::kFp32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4};
    case GemmDtype::kFp8: return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2};
  }
  throw std::invalid_argument("unknown dtype");
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  const int exp = (h >> 10) & 0x1f;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) return (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(mant), -24);
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | (static_cast<std::uint32_t>(exp + 112) << 23) | (mant << 13));
}

float read_output(const std::vector<unsigned char>& raw, std::size_t index, std::size_t bytes, GemmDtype d) {
  if (bytes == 4) {
    float f;
    std::memcpy(&f, raw.data() + index * 4, 4);
    return f;
  }
  std::uint16_t h;
  std::memcpy(&h, raw.data() + index * 2, 2);
  if (d == GemmDtype::kFp16) return half_to_float(h);
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);  // bf16
}

// One matmul problem: D (m x n) = op(A) (m x k) * B (k x n), column-major, A stored k x m and transposed
// ("TN", the layout fp8 requires on Hopper), fp32 accumulation, alpha 1, beta 0.
struct Problem {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  ~Problem() {
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

void setup(Problem& p, cublasLtHandle_t lt, const GemmShape& s, const Types& t) {
  const auto m = static_cast<std::uint64_t>(s.m), n = static_cast<std::uint64_t>(s.n),
             k = static_cast<std::uint64_t>(s.k);
  PLANSIM_CUBLAS(cublasLtMatmulDescCreate(&p.op, t.compute, CUDA_R_32F));
  const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
  PLANSIM_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)));
  PLANSIM_CUBLAS(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)));
  PLANSIM_CUBLAS(cublasLtMatrixLayoutCreate(&p.a, t.ab, k, m, static_cast<std::int64_t>(k)));
  PLANSIM_CUBLAS(cublasLtMatrixLayoutCreate(&p.b, t.ab, k, n, static_cast<std::int64_t>(k)));
  PLANSIM_CUBLAS(cublasLtMatrixLayoutCreate(&p.d, t.cd, m, n, static_cast<std::int64_t>(m)));
  cublasLtMatmulPreference_t pref = nullptr;
  PLANSIM_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = kWorkspaceBytes;
  int found = 0;
  cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.a, p.b, p.d, p.d, pref, 1, &p.algo, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  PLANSIM_CUBLAS(st);
  if (found == 0) throw std::runtime_error(fmt::format("cuBLASLt has no algorithm for {}x{}x{}", s.m, s.n, s.k));
}

}  // namespace

GemmDtype parse_gemm_dtype(const std::string& name) {
  if (name == "bf16") return GemmDtype::kBf16;
  if (name == "fp16") return GemmDtype::kFp16;
  if (name == "fp32") return GemmDtype::kFp32;
  if (name == "fp8") return GemmDtype::kFp8;
  throw std::invalid_argument(fmt::format("unknown dtype '{}' (bf16, fp16, fp32 or fp8)", name));
}

std::string dtype_name(GemmDtype dtype) {
  switch (dtype) {
    case GemmDtype::kBf16: return "bf16";
    case GemmDtype::kFp16: return "fp16";
    case GemmDtype::kFp32: return "fp32";
    case GemmDtype::kFp8: return "fp8";
  }
  return "?";
}

int run_gemm_bench(const GemmBenchOptions& opt) {
  const std::vector<GemmShape> shapes = opt.shapes.empty() ? default_gemm_shapes() : opt.shapes;
  PLANSIM_CUDA(cudaSetDevice(opt.device));
  const DeviceInfo dev = device_info(opt.device);
  if (opt.dtype == GemmDtype::kFp8 && dev.cc_major * 10 + dev.cc_minor < 89)
    throw std::invalid_argument(fmt::format("fp8 GEMMs need compute capability 8.9 or newer; {} is {}.{}", dev.name,
                                            dev.cc_major, dev.cc_minor));
  const std::string dtype = dtype_name(opt.dtype);
  const std::optional<double> peak = opt.peak_tflops > 0 ? std::optional(opt.peak_tflops * 1e12)
                                                         : peak_flops(dev, dtype);
  const Types t = types_of(opt.dtype);
  cublasLtHandle_t lt = nullptr;
  PLANSIM_CUBLAS(cublasLtCreate(&lt));
  struct HandleGuard {
    cublasLtHandle_t h;
    ~HandleGuard() { cublasLtDestroy(h); }
  } guard{lt};
  Stream stream;
  DeviceBuffer workspace(kWorkspaceBytes);
  nlohmann::json doc = make_bench_document("gemm", device_json(opt.device),
                                           {{"dtype", dtype}, {"iters", opt.iters}, {"warmup", opt.warmup},
                                            {"layout", "TN column-major, fp32 accumulate"}});
  std::cout << fmt::format("# plansim-hw bench gemm: {} on {} (peak {}), {} iterations after {} warm-up\n", dtype,
                           dev.name, peak ? fmt::format("{:.1f} TFLOP/s", *peak / 1e12) : "unknown", opt.iters,
                           opt.warmup)
            << fmt::format("#{:>7} {:>7} {:>7}  {:>10}  {:>10}  {:>9}  {:>6}  {:>6}\n", "M", "N", "K", "GFLOP",
                           "time (us)", "TFLOP/s", "eff", "#wrong");
  std::size_t total_wrong = 0;
  for (const GemmShape& s : shapes) {
    const auto m = static_cast<std::size_t>(s.m), n = static_cast<std::size_t>(s.n), k = static_cast<std::size_t>(s.k);
    DeviceBuffer a(m * k * t.ab_bytes), b(k * n * t.ab_bytes), d(m * n * t.cd_bytes);
    fill_gemm_operand(a.get(), opt.dtype, m * k, kSeedA, stream.get());
    fill_gemm_operand(b.get(), opt.dtype, k * n, kSeedB, stream.get());
    Problem p;
    setup(p, lt, s, t);
    const float alpha = 1.0f, beta = 0.0f;
    auto launch = [&] {
      PLANSIM_CUBLAS(cublasLtMatmul(lt, p.op, &alpha, a.get(), p.a, b.get(), p.b, &beta, d.get(), p.d, d.get(), p.d,
                                    &p.algo.algo, workspace.get(), kWorkspaceBytes, stream.get()));
    };
    launch();
    std::vector<unsigned char> host(m * n * t.cd_bytes);
    PLANSIM_CUDA(cudaMemcpyAsync(host.data(), d.get(), host.size(), cudaMemcpyDeviceToHost, stream.get()));
    stream.sync();
    // Operands are integers in {-1, 0, 1}: the exact dot product is an integer of magnitude <= K; the only
    // error allowed is the rounding of the output type (bf16 keeps 8 significant bits).
    std::size_t wrong = 0;
    for (int sample = 0; sample < kSamples; ++sample) {
      const std::size_t i = (static_cast<std::size_t>(sample) * 7919u) % m, j = (static_cast<std::size_t>(sample) * 104729u) % n;
      double want = 0;
      for (std::size_t l = 0; l < k; ++l)
        want += static_cast<double>(gemm_operand(kSeedA, l + i * k)) * static_cast<double>(gemm_operand(kSeedB, l + j * k));
      const auto got = static_cast<double>(read_output(host, i + j * m, t.cd_bytes, opt.dtype));
      if (std::abs(got - want) > std::abs(want) * (1.0 / 128.0) + 1e-6) ++wrong;
    }
    total_wrong += wrong;
    for (int i = 0; i < opt.warmup; ++i) launch();
    Event start, stop;
    start.record(stream.get());
    for (int i = 0; i < opt.iters; ++i) launch();
    stop.record(stream.get());
    const double seconds = elapsed_seconds(start, stop) / opt.iters;
    const double rate = s.flops() / seconds;
    std::cout << fmt::format("{:>8} {:>7} {:>7}  {:>10.1f}  {:>10.1f}  {:>9.1f}  {:>6}  {:>6}\n", s.m, s.n, s.k,
                             s.flops() / 1e9, seconds * 1e6, rate / 1e12,
                             peak ? fmt::format("{:.3f}", rate / *peak) : "N/A", wrong)
              << std::flush;
    nlohmann::json row = {{"m", s.m},         {"n", s.n},           {"k", s.k},
                          {"dtype", dtype},   {"flops", s.flops()}, {"time_s", seconds},
                          {"flops_per_s", rate}, {"wrong", wrong}};
    row["peak_flops"] = peak ? nlohmann::json(*peak) : nlohmann::json(nullptr);
    doc["rows"].push_back(row);
  }
  if (!opt.json.empty()) write_bench_json(opt.json, doc);
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace plansim::hw
