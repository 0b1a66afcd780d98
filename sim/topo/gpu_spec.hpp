#pragma once
// What the compute model needs to know about one GPU model: peak dense throughput per dtype,
// HBM capacity and bandwidth. Values come from the topology YAML or the built-in catalog
// (gpu_catalog.hpp), each citing its source.
#include <map>
#include <optional>
#include <string>

#include "sim/core/units.hpp"

namespace plansim {

enum class DType { fp32, tf32, fp16, bf16, fp8 };
std::optional<DType> dtype_from_string(const std::string& s);
const char* to_string(DType d);
Bytes dtype_size(DType d);

struct GpuSpec {
  std::string model;                     // e.g. "H100-SXM-80GB"
  std::map<DType, FlopRate> peak_dense;  // dense (no sparsity) tensor-core peak
  Bytes hbm_capacity;
  Rate hbm_bandwidth;
  int sm_count = 0;
  // Rated board power the peaks assume (0 = unknown) and the configured power limit (0 = the TDP):
  // below the TDP the tensor cores run at power_capped_clock_factor (sim/topo/power_clock.hpp).
  double tdp_watts = 0;
  double power_limit_watts = 0;

  [[nodiscard]] FlopRate peak(DType d) const;  // throws ConfigError-free InternalError if absent
  [[nodiscard]] bool supports(DType d) const { return peak_dense.count(d) != 0; }
  // Sustained tensor-core clock under power_limit_watts relative to the clock at the TDP (1 uncapped).
  [[nodiscard]] double power_clock_factor() const;
};

}  // namespace plansim
