#include "hw/check.hpp"

#include <fmt/format.h>

namespace plansim::hw {

GpuError::GpuError(const std::string& library, int code, const std::string& description, const char* call,
                   const char* file, int line)
    : std::runtime_error(fmt::format("{}:{}: {} failed: {} error {}: {}", file, line, call, library, code,
                                     description)),
      library_(library),
      code_(code) {}

void check_cuda(cudaError_t status, const char* call, const char* file, int line) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // reset the (non-sticky) last-error state before reporting
  throw GpuError("CUDA", static_cast<int>(status),
                 fmt::format("{} ({})", cudaGetErrorName(status), cudaGetErrorString(status)), call, file, line);
}

void check_nccl(ncclResult_t status, const char* call, const char* file, int line) {
  if (status == ncclSuccess) return;
  std::string description = ncclGetErrorString(status);
  if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0')
    description += fmt::format(" (last error: {})", last);
  throw GpuError("NCCL", static_cast<int>(status), description, call, file, line);
}

void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw GpuError("cuBLAS", static_cast<int>(status),
                 fmt::format("{} ({})", cublasLtGetStatusName(status), cublasLtGetStatusString(status)), call, file,
                 line);
}

}  // namespace plansim::hw
