#pragma once
// The only device code of plansim-hw (kernels.cu): buffer fills with the deterministic patterns of
// pattern.hpp. Launch errors surface as GpuError through PLANSIM_CUDA inside the wrappers.
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace plansim::hw {

enum class GemmDtype { kBf16, kFp16, kFp32, kFp8 };

// p[i] = pattern_value(rank, i) for i in [0, n).
void fill_pattern(float* p, std::size_t n, std::uint64_t rank, cudaStream_t stream);
// p[i] = gemm_operand(seed, i) converted to the dtype (fp8 = e4m3).
void fill_gemm_operand(void* p, GemmDtype dtype, std::size_t n, std::uint64_t seed, cudaStream_t stream);

}  // namespace plansim::hw
