#pragma once
// The element type of `plansim-hw`'s GEMMs and attention, GPU-free (launch planning and the dry run
// use it without CUDA headers). tf32: fp32 operands on tensor cores (CUBLAS_COMPUTE_32F_FAST_TF32);
// fp8: e4m3 operands, bf16 output, fp32 accumulation with cuBLASLt's fast accumulation.
#include <string>

namespace plansim::hw {

enum class GemmDtype { kBf16, kFp16, kFp32, kTf32, kFp8 };

// Element bytes of GEMM inputs (A, B) and outputs (D).
struct ElementBytes {
  double ab = 2, cd = 2;
};
ElementBytes element_bytes(GemmDtype d);

// Lowest compute capability (major * 10 + minor) whose tensor cores run the dtype: tf32/bf16 8.0,
// fp8 8.9; fp16/fp32 any.
int min_compute_capability(GemmDtype d);

// "" when cuBLASLt can tile an m x n x k product of this dtype, else why not (fp8 needs every
// dimension a multiple of 16: its kernels load 16-byte aligned rows of e4m3).
std::string gemm_tiling_problem(double m, double n, double k, GemmDtype d);

}  // namespace plansim::hw
