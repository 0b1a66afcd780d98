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
#include "hw/environment.hpp"
#include "hw/gemm_problem.hpp"
#include "hw/pattern.hpp"

namespace plansim::hw {
namespace {

constexpr std::uint64_t kSeedA = 1, kSeedB = 2;
constexpr int kSamples = 64;  // result entries checked on the host per shape

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

}  // namespace

GemmDtype parse_gemm_dtype(const std::string& name) {
  if (name == "bf16") return GemmDtype::kBf16;
  if (name == "fp16") return GemmDtype::kFp16;
  if (name == "fp32") return GemmDtype::kFp32;
  if (name == "tf32") return GemmDtype::kTf32;
  if (name == "fp8") return GemmDtype::kFp8;
  throw std::invalid_argument(fmt::format("unknown dtype '{}' (bf16, fp16, tf32, fp32 or fp8)", name));
}

std::string dtype_name(GemmDtype dtype) {
  switch (dtype) {
    case GemmDtype::kBf16: return "bf16";
    case GemmDtype::kFp16: return "fp16";
    case GemmDtype::kFp32: return "fp32";
    case GemmDtype::kTf32: return "tf32";
    case GemmDtype::kFp8: return "fp8";
  }
  return "?";
}

int run_gemm_bench(const GemmBenchOptions& opt) {
  const std::vector<GemmShape> shapes = opt.shapes.empty() ? default_gemm_shapes() : opt.shapes;
  PLANSIM_CUDA(cudaSetDevice(opt.device));
  const DeviceInfo dev = device_info(opt.device);
  const int need = min_compute_capability(opt.dtype);
  if (dev.cc_major * 10 + dev.cc_minor < need)
    throw std::invalid_argument(fmt::format("{} GEMMs need compute capability {}.{} or newer; {} is {}.{}",
                                            dtype_name(opt.dtype), need / 10, need % 10, dev.name, dev.cc_major,
                                            dev.cc_minor));
  NvmlSampler sampler({opt.device});  // clocks, power and throttling while the GEMMs run
  const std::string dtype = dtype_name(opt.dtype);
  const std::optional<double> peak = opt.peak_tflops > 0 ? std::optional(opt.peak_tflops * 1e12)
                                                         : peak_flops(dev, dtype);
  const GemmTypes t = gemm_types(opt.dtype);
  cublasLtHandle_t lt = nullptr;
  PLANSIM_CUBLAS(cublasLtCreate(&lt));
  struct HandleGuard {
    cublasLtHandle_t h;
    ~HandleGuard() { cublasLtDestroy(h); }
  } guard{lt};
  Stream stream;
  DeviceBuffer workspace(kGemmWorkspaceBytes);
  nlohmann::json doc = make_bench_document("gemm", device_json(opt.device),
                                           {{"dtype", dtype}, {"iters", opt.iters}, {"warmup", opt.warmup},
                                            {"layout", "TN column-major, fp32 accumulate"},
                                            {"timed_data", "uniform random in [-1, 1); checked on {-1, 0, 1} first"},
                                            {"fp8_fast_accumulation", opt.dtype == GemmDtype::kFp8}});
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
    const GemmProblem p(lt, s, opt.dtype);
    auto launch = [&] { p.run(a.get(), b.get(), d.get(), workspace.get(), stream.get()); };
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
    // Timed on random data: zeros and small integers draw less power and run faster than real data.
    fill_random_operand(a.get(), opt.dtype, m * k, kSeedA, stream.get());
    fill_random_operand(b.get(), opt.dtype, k * n, kSeedB, stream.get());
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
  doc["environment"] = bench_environment({opt.device}, sampler.stop());
  if (!opt.json.empty()) write_bench_json(opt.json, doc);
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace plansim::hw
