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

template <class T>
__global__ void fill_random_kernel(T* p, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{blockDim.x} * gridDim.x)
    p[i] = T(random_operand(seed, i));
}

__global__ void copy_kernel(const uint4* src, uint4* dst, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{blockDim.x} * gridDim.x)
    dst[i] = src[i];
}

// One block per row: max, sum of exponentials, normalise (three passes over the row, in fp32).
// Causal: keys past `last` are masked (excluded, written as 0).
template <class T>
__global__ void softmax_kernel(T* data, std::size_t all_cols, std::size_t queries, bool causal) {
  __shared__ float partial[kThreads];
  T* row = data + blockIdx.x * all_cols;
  const std::size_t q = blockIdx.x % queries;
  const std::size_t cols = causal ? q + all_cols - queries + 1 : all_cols;
  for (std::size_t j = cols + threadIdx.x; j < all_cols; j += blockDim.x) row[j] = T(0.0f);
  float m = -3.0e38f;
  for (std::size_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, static_cast<float>(row[j]));
  partial[threadIdx.x] = m;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  m = partial[0];
  __syncthreads();
  float sum = 0;
  for (std::size_t j = threadIdx.x; j < cols; j += blockDim.x) sum += __expf(static_cast<float>(row[j]) - m);
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / partial[0];
  for (std::size_t j = threadIdx.x; j < cols; j += blockDim.x) row[j] = T(__expf(static_cast<float>(row[j]) - m) * inv);
}

}  // namespace

void copy_bytes(const void* src, void* dst, std::size_t bytes, cudaStream_t stream) {
  const std::size_t n = bytes / sizeof(uint4);
  if (n == 0) return;
  copy_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), n);
  PLANSIM_CUDA(cudaGetLastError());
}

void softmax_rows(void* data, std::size_t element_bytes, std::size_t rows, std::size_t cols, std::size_t queries,
                  bool causal, cudaStream_t stream) {
  if (rows == 0 || cols == 0 || queries == 0 || queries > cols) return;
  const auto grid = static_cast<unsigned>(rows);
  if (element_bytes == 4) softmax_kernel<<<grid, kThreads, 0, stream>>>(static_cast<float*>(data), cols, queries, causal);
  else softmax_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), cols, queries, causal);
  PLANSIM_CUDA(cudaGetLastError());
}

void fill_pattern(float* p, std::size_t n, std::uint64_t rank, cudaStream_t stream) {
  fill_pattern_kernel<<<blocks_for(n), kThreads, 0, stream>>>(p, n, rank);
  PLANSIM_CUDA(cudaGetLastError());
}

void fill_random_operand(void* p, GemmDtype dtype, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  switch (dtype) {
    case GemmDtype::kBf16:
      fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(p), n, seed);
      break;
    case GemmDtype::kFp16:
      fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__half*>(p), n, seed);
      break;
    case GemmDtype::kFp32:
    case GemmDtype::kTf32:
      fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(p), n, seed);
      break;
    case GemmDtype::kFp8:
      fill_random_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed);
      break;
  }
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
    case GemmDtype::kTf32:
      fill_operand_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<float*>(p), n, seed);
      break;
    case GemmDtype::kFp8:
      fill_operand_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(p), n, seed);
      break;
  }
  PLANSIM_CUDA(cudaGetLastError());
}

}  // namespace plansim::hw
