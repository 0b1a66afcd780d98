#pragma once
// The error boundary of plansim-hw: every CUDA runtime, NCCL and cuBLAS(Lt) call goes through one of the
// macros below, which turn a failing status code into a GpuError carrying the call's text, file:line and
// the library's own error string. Nothing in hw/ inspects raw status codes elsewhere.
//
//   PLANSIM_CUDA(cudaMalloc(&p, n));
//   PLANSIM_NCCL(ncclAllReduce(...));
//   PLANSIM_CUBLAS(cublasLtMatmul(...));
#include <stdexcept>
#include <string>

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

namespace plansim::hw {

// A failed GPU library call. what() = "file:line: CALL failed: LIBRARY error NAME (CODE): DESCRIPTION".
class GpuError : public std::runtime_error {
 public:
  GpuError(const std::string& library, int code, const std::string& description, const char* call, const char* file,
           int line);
  [[nodiscard]] const std::string& library() const { return library_; }
  [[nodiscard]] int code() const { return code_; }

 private:
  std::string library_;
  int code_;
};

// No usable CUDA device: the one failure that GPU tests turn into "skipped" (exit 77).
class NoDeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check_cuda(cudaError_t status, const char* call, const char* file, int line);
void check_nccl(ncclResult_t status, const char* call, const char* file, int line);
void check_cublas(cublasStatus_t status, const char* call, const char* file, int line);

}  // namespace plansim::hw

#define PLANSIM_CUDA(call) ::plansim::hw::check_cuda((call), #call, __FILE__, __LINE__)
#define PLANSIM_NCCL(call) ::plansim::hw::check_nccl((call), #call, __FILE__, __LINE__)
#define PLANSIM_CUBLAS(call) ::plansim::hw::check_cublas((call), #call, __FILE__, __LINE__)
