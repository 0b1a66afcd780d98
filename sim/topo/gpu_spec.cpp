#include "sim/topo/gpu_spec.hpp"

#include "sim/core/assert.hpp"
#include "sim/topo/power_clock.hpp"

namespace plansim {

std::optional<DType> dtype_from_string(const std::string& s) {
  if (s == "fp32" || s == "float32") return DType::fp32;
  if (s == "tf32") return DType::tf32;
  if (s == "fp16" || s == "float16" || s == "half") return DType::fp16;
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "fp8" || s == "float8") return DType::fp8;
  return std::nullopt;
}

const char* to_string(DType d) {
  switch (d) {
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::fp16: return "fp16";
    case DType::bf16: return "bf16";
    case DType::fp8: return "fp8";
  }
  return "?";
}

Bytes dtype_size(DType d) {
  switch (d) {
    case DType::fp32:
    case DType::tf32: return Bytes(4);
    case DType::fp16:
    case DType::bf16: return Bytes(2);
    case DType::fp8: return Bytes(1);
  }
  return Bytes(0);
}

FlopRate GpuSpec::peak(DType d) const {
  auto it = peak_dense.find(d);
  PLANSIM_ASSERT(it != peak_dense.end(), "GPU " + model + " has no peak for " + to_string(d));
  return it->second;
}

double GpuSpec::power_clock_factor() const { return power_capped_clock_factor(power_limit_watts, tdp_watts); }

}  // namespace plansim
