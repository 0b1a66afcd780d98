#pragma once
// A hand-written H100 SXM spec for compute-model tests (its figures fixed here, independent of the GPU
// catalog, so that catalog edits do not move these tests' closed forms).
#include "sim/topo/gpu_spec.hpp"

namespace plansim::testing {

inline GpuSpec h100() {
  GpuSpec g;
  g.model = "H100-SXM-80GB";
  g.peak_dense[DType::bf16] = TFLOPs_per_s(989);
  g.peak_dense[DType::fp8] = TFLOPs_per_s(1979);
  g.hbm_capacity = GB(80);
  g.hbm_bandwidth = GBps(3350);
  g.sm_count = 132;
  return g;
}

}  // namespace plansim::testing
