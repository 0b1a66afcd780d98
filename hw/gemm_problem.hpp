#pragma once
// One cuBLASLt matmul problem, shared by `bench gemm` and `run`: D (m×n) = op(A) (m×k) · B (k×n),
// column-major, A stored k×m and transposed ("TN", the layout fp8 requires on Hopper), fp32
// accumulation, alpha 1, beta 0, `batch` problems side by side (strided batch), cuBLASLt's first
// heuristic algorithm within a 32 MiB workspace.
#include <cstddef>
#include <cstdint>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "hw/bench_spec.hpp"
#include "hw/kernels.hpp"

namespace plansim::hw {

inline constexpr std::size_t kGemmWorkspaceBytes = 32u << 20;

struct GemmTypes {
  cudaDataType_t ab, cd;
  cublasComputeType_t compute;
  std::size_t ab_bytes, cd_bytes;
};
GemmTypes gemm_types(GemmDtype d);

class GemmProblem {
 public:
  GemmProblem(cublasLtHandle_t lt, const GemmShape& s, GemmDtype dtype, std::int64_t batch = 1);
  ~GemmProblem();
  GemmProblem(const GemmProblem&) = delete;
  GemmProblem& operator=(const GemmProblem&) = delete;
  // Enqueues D = A·B on `stream`; workspace: kGemmWorkspaceBytes.
  void run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const;

 private:
  void destroy();
  cublasLtHandle_t lt_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, d_ = nullptr;
  cublasLtMatmulHeuristicResult_t algo_{};
};

}  // namespace plansim::hw
