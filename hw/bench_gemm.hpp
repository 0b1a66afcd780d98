#pragma once
// `plansim-hw bench gemm`: cuBLASLt matmul throughput per shape (see hw/README.md).
#include <string>
#include <vector>

#include "hw/bench_spec.hpp"
#include "hw/kernels.hpp"

namespace plansim::hw {

struct GemmBenchOptions {
  std::vector<GemmShape> shapes;  // empty = default_gemm_shapes()
  GemmDtype dtype = GemmDtype::kBf16;
  int device = 0;
  int iters = 20;
  int warmup = 5;
  double peak_tflops = 0;  // 0 = from the device table (device.hpp)
  std::string json;
};

GemmDtype parse_gemm_dtype(const std::string& name);  // bf16 | fp16 | fp32 | fp8; throws std::invalid_argument
std::string dtype_name(GemmDtype dtype);

// Prints one line per shape; returns 0, or 1 if a sampled result was wrong.
int run_gemm_bench(const GemmBenchOptions& opt);

}  // namespace plansim::hw
