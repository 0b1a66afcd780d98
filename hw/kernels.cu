// Buffer fills for the benches (see kernels.hpp). Kept to grid-stride loops so nvcc work stays small.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "hw/check.hpp"
#include "hw/kernels.hpp"
#include "hw/pattern.hpp"

namespace plansim::hw {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::size_t n) {
  const std::size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 ? (b == 0 ? 1 : b) : 65535);
}

__global__ void fill_pattern_kernel(float* p, std::size_t n, std::uint64_t rank) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{blockDim.x} * gridDim.x)
    p[i] = pattern_value(rank, i);
}

template <class T>
__global__ void fill_operand_kernel(T* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{blockDim.x} * gridDim.x)
    p[i] = T(gemm_operand(seed, i));
}

}  // namespace

void fill_pattern(float* p, std::size_t n, std::uint64_t rank, cudaStream_t stream) {
  fill_pattern_kernel<<<blocks_for(n), kThreads, 0, stream>>>(p, n, rank);
  PLANSIM_CUDA(cudaGetLastError());
}

void fill_gemm_operand(void* p, GemmDtype dtype, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  switch (dtype) {
    case GemmDtype::kBf16:
      fill_operand_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(p), n, seed);
      break;
    case GemmDtype::kFp16:
      fill_operand_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__half*>(p), n, seed);
      break;
    case GemmDtype::kFp32:
      fill_operand_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(p), n, seed);
      break;
    case GemmDtype::kFp8:
      fill_operand_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed);
      break;
  }
  PLANSIM_CUDA(cudaGetLastError());
}

}  // namespace plansim::hw
