#pragma once
// Local CUDA devices: the no-device check every GPU command starts with, and the "device" object of the
// bench JSON (name, compute capability, memory, SMs, clocks, library versions).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace plansim::hw {

// The number of visible CUDA devices. Throws NoDeviceError("plansim-hw: no CUDA device found
// (cudaGetDeviceCount: ...)") when there are none or the driver cannot be used.
int require_devices();

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  double memory_bytes = 0;
  int sm_count = 0;
  double sm_clock_hz = 0;  // peak SM clock
};
DeviceInfo device_info(int ordinal);

// The bench JSON "device" object for the given device (with local device count and library versions).
nlohmann::json device_json(int ordinal);

// Dense tensor-core peak of one device for a GEMM dtype ("bf16", "fp16", "fp32", "fp8"), from the SM count,
// the peak SM clock and the per-SM throughput of its architecture (sm_80, sm_89, sm_90); nullopt when unknown.
std::optional<double> peak_flops(const DeviceInfo& dev, const std::string& dtype);

}  // namespace plansim::hw
