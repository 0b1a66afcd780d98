#include "hw/device.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <fmt/format.h>

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
  for (const char* dtype : {"bf16", "fp16", "fp32", "fp8"})
    if (auto p = peak_flops(d, dtype)) j["peak_flops"][dtype] = *p;
  return j;
}

std::optional<double> peak_flops(const DeviceInfo& dev, const std::string& dtype) {
  // Dense FLOP per clock per SM (an FMA counts 2). A100 (sm_80): 108 SMs x 1.41 GHz x 2048 = 312 TFLOP/s
  // bf16; H100 SXM (sm_90): 132 x 1.83 GHz x 4096 = 989 TFLOP/s bf16, 1979 fp8; L40S (sm_89): 142 x 2.52 GHz
  // x 1024 = 366 bf16. fp32 is the CUDA-core rate (no TF32).
  const int cc = dev.cc_major * 10 + dev.cc_minor;
  double per_sm = 0;
  if (dtype == "bf16" || dtype == "fp16") per_sm = cc == 80 ? 2048 : cc == 89 ? 1024 : cc == 90 ? 4096 : 0;
  if (dtype == "fp8") per_sm = cc == 89 ? 2048 : cc == 90 ? 8192 : 0;
  if (dtype == "fp32") per_sm = cc == 80 ? 128 : cc == 89 ? 256 : cc == 90 ? 256 : 0;
  if (per_sm == 0) return std::nullopt;
  return per_sm * dev.sm_count * dev.sm_clock_hz;
}

}  // namespace plansim::hw
