#include "hw/gemm_problem.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "hw/check.hpp"

namespace plansim::hw {

GemmTypes gemm_types(GemmDtype d) {
  switch (d) {
    case GemmDtype::kBf16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2};
    case GemmDtype::kFp16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2};
    case GemmDtype::kFp32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4};
    // TF32: fp32 operands on the tensor cores (plain CUBLAS_COMPUTE_32F would run on the CUDA cores).
    case GemmDtype::kTf32: return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4};
    case GemmDtype::kFp8: return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 1, 2};
  }
  throw std::invalid_argument("unknown dtype");
}

namespace {
void set_batch(cublasLtMatrixLayout_t layout, std::int64_t batch, std::int64_t stride) {
  const auto count = static_cast<std::int32_t>(batch);
  PLANSIM_CUBLAS(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)));
  PLANSIM_CUBLAS(
      cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
}
}  // namespace

GemmProblem::GemmProblem(cublasLtHandle_t lt, const GemmShape& s, GemmDtype dtype, std::int64_t batch) : lt_(lt) {
  const GemmTypes t = gemm_types(dtype);
  const auto m = static_cast<std::uint64_t>(s.m), n = static_cast<std::uint64_t>(s.n),
             k = static_cast<std::uint64_t>(s.k);
  try {
    PLANSIM_CUBLAS(cublasLtMatmulDescCreate(&op_, t.compute, CUDA_R_32F));
    const cublasOperation_t trans_a = CUBLAS_OP_T, trans_b = CUBLAS_OP_N;
    PLANSIM_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a, sizeof(trans_a)));
    PLANSIM_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b, sizeof(trans_b)));
    if (dtype == GemmDtype::kFp8) {
      // Fast accumulation (no periodic promotion to fp32), as Transformer Engine's forward GEMMs run.
      const std::int8_t fast = 1;
      PLANSIM_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof(fast)));
    }
    PLANSIM_CUBLAS(cublasLtMatrixLayoutCreate(&a_, t.ab, k, m, static_cast<std::int64_t>(k)));
    PLANSIM_CUBLAS(cublasLtMatrixLayoutCreate(&b_, t.ab, k, n, static_cast<std::int64_t>(k)));
    PLANSIM_CUBLAS(cublasLtMatrixLayoutCreate(&d_, t.cd, m, n, static_cast<std::int64_t>(m)));
    if (batch > 1) {
      set_batch(a_, batch, s.k * s.m);
      set_batch(b_, batch, s.k * s.n);
      set_batch(d_, batch, s.m * s.n);
    }
    cublasLtMatmulPreference_t pref = nullptr;
    PLANSIM_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t ws = kGemmWorkspaceBytes;
    int found = 0;
    cublasStatus_t st =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
    if (st == CUBLAS_STATUS_SUCCESS)
      st = cublasLtMatmulAlgoGetHeuristic(lt, op_, a_, b_, d_, d_, pref, 1, &algo_, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (found == 0 || st == CUBLAS_STATUS_NOT_SUPPORTED) {
      const std::string why = gemm_tiling_problem(static_cast<double>(s.m), static_cast<double>(s.n),
                                                  static_cast<double>(s.k), dtype);
      throw std::runtime_error(fmt::format("cuBLASLt has no {} algorithm for {}x{}x{} (batch {}){}",
                                           dtype == GemmDtype::kFp8 ? "fp8" : "", s.m, s.n, s.k, batch,
                                           why.empty() ? "" : ": " + why));
    }
    PLANSIM_CUBLAS(st);
  } catch (...) {
    destroy();
    throw;
  }
}

GemmProblem::~GemmProblem() { destroy(); }

void GemmProblem::destroy() {
  if (d_) cublasLtMatrixLayoutDestroy(d_);
  if (b_) cublasLtMatrixLayoutDestroy(b_);
  if (a_) cublasLtMatrixLayoutDestroy(a_);
  if (op_) cublasLtMatmulDescDestroy(op_);
  d_ = b_ = a_ = nullptr;
  op_ = nullptr;
}

void GemmProblem::run(const void* a, const void* b, void* d, void* workspace, cudaStream_t stream) const {
  const float alpha = 1.0f, beta = 0.0f;
  PLANSIM_CUBLAS(cublasLtMatmul(lt_, op_, &alpha, a, a_, b, b_, &beta, d, d_, d, d_, &algo_.algo, workspace,
                                kGemmWorkspaceBytes, stream));
}

}  // namespace plansim::hw
