#include "hw/device.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <fmt/format.h>

#include "hw/bench_spec.hpp"
#include "hw/check.hpp"

namespace plansim::hw {

int require_devices() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw NoDeviceError(fmt::format("plansim-hw: no CUDA device found (cudaGetDeviceCount: {}: {})",
                                    cudaGetErrorName(status), cudaGetErrorString(status)));
  }
  if (count == 0) throw NoDeviceError("plansim-hw: no CUDA device found (cudaGetDeviceCount: 0 devices)");
  return count;
}

DeviceInfo device_info(int ordinal) {
  cudaDeviceProp prop{};
  PLANSIM_CUDA(cudaGetDeviceProperties(&prop, ordinal));
  int clock_khz = 0;
  PLANSIM_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, ordinal));
  DeviceInfo info;
  info.ordinal = ordinal;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  info.sm_count = prop.multiProcessorCount;
  info.sm_clock_hz = clock_khz * 1e3;
  return info;
}

nlohmann::json device_json(int ordinal) {
  const DeviceInfo d = device_info(ordinal);
  int count = 0, driver = 0, runtime = 0, nccl = 0;
  PLANSIM_CUDA(cudaGetDeviceCount(&count));
  PLANSIM_CUDA(cudaDriverGetVersion(&driver));
  PLANSIM_CUDA(cudaRuntimeGetVersion(&runtime));
  PLANSIM_NCCL(ncclGetVersion(&nccl));
  nlohmann::json j = {{"name", d.name},
                      {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                      {"memory_bytes", d.memory_bytes},
                      {"sm_count", d.sm_count},
                      {"sm_clock_hz", d.sm_clock_hz},
                      {"local_device_count", count},
                      {"cuda_driver", driver},
                      {"cuda_runtime", runtime},
                      {"nccl", nccl}};
  for (const char* dtype : {"bf16", "fp16", "tf32", "fp32", "fp8"})
    if (auto p = peak_flops(d, dtype)) j["peak_flops"][dtype] = *p;
  const auto spec = spec_sm_clock_hz(d.cc_major * 10 + d.cc_minor, d.sm_count);
  j["peak_clock_hz"] = spec.value_or(d.sm_clock_hz);
  j["peak_clock_source"] = spec ? "spec sheet" : "driver maximum clock (no spec entry for this GPU)";
  return j;
}

std::optional<double> peak_flops(const DeviceInfo& dev, const std::string& dtype) {
  // Dense FLOP per clock per SM x SMs x the spec sheet's clock (bench_spec.hpp): H100 SXM 132 x 4096 x
  // 1.83 GHz = 989 TFLOP/s bf16. Unknown parts fall back to the driver's maximum clock.
  const int cc = dev.cc_major * 10 + dev.cc_minor;
  const double per_sm = flops_per_clock_per_sm(cc, dtype);
  if (per_sm == 0) return std::nullopt;
  return per_sm * dev.sm_count * spec_sm_clock_hz(cc, dev.sm_count).value_or(dev.sm_clock_hz);
}

}  // namespace plansim::hw
