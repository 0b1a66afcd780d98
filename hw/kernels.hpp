#pragma once
// The only device code of plansim-hw (kernels.cu): buffer fills with the deterministic patterns of
// pattern.hpp, and the copy and softmax kernels of `run`. Launch errors surface as GpuError through PLANSIM_CUDA inside the wrappers.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "hw/gemm_dtype.hpp"

namespace plansim::hw {

// p[i] = pattern_value(rank, i) for i in [0, n).
void fill_pattern(float* p, std::size_t n, std::uint64_t rank, cudaStream_t stream);
// p[i] = gemm_operand(seed, i) converted to the dtype (fp8 = e4m3; tf32 = fp32): the correctness check's data.
void fill_gemm_operand(void* p, GemmDtype dtype, std::size_t n, std::uint64_t seed, cudaStream_t stream);
// p[i] = random_operand(seed, i) (uniform in [-1, 1), every mantissa bit busy) converted to the dtype: what
// GEMMs are timed on (zeros draw less power and run faster than real data).
void fill_random_operand(void* p, GemmDtype dtype, std::size_t n, std::uint64_t seed, cudaStream_t stream);

// `plansim-hw run`'s stand-ins for non-GEMM kernels (timing only, the data is arbitrary):
// copies bytes from src to dst (bandwidth-bound: what an elementwise op costs);
void copy_bytes(const void* src, void* dst, std::size_t bytes, cudaStream_t stream);
// the unfused attention fallback's softmax: a numerically safe softmax over each of `rows` rows of `cols`
// elements, in place (2-byte elements as bf16, 4-byte as fp32); causal: row r (query r % queries, keys
// aligned to the end) sees keys up to (r % queries) + cols - queries, the rest become 0.
void softmax_rows(void* data, std::size_t element_bytes, std::size_t rows, std::size_t cols, std::size_t queries,
                  bool causal, cudaStream_t stream);

}  // namespace plansim::hw
