#pragma once
// Deterministic buffer contents shared by the fill kernels (nvcc) and the host-side checks (g++).
// NCCL benches: rank r's element i holds pattern_value(r, i), a small integer (0..60), so sums over up to
// 2^24 / 61 (about 275 000) ranks are exact in fp32 whatever order NCCL reduces in.
// GEMM benches: operands hold gemm_operand(seed, i) in {-1, 0, 1}, exact in every dtype including fp8.
#include <cstdint>

#if defined(__CUDACC__)
#define PLANSIM_HD __host__ __device__
#else
#define PLANSIM_HD
#endif

namespace plansim::hw {

PLANSIM_HD inline float pattern_value(std::uint64_t rank, std::uint64_t index) {
  return static_cast<float>((rank * 13U + index * 7U + 1U) % 61U);
}

PLANSIM_HD inline float gemm_operand(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t h = (index + 1U) * 0x9E3779B97F4A7C15ULL ^ (seed * 0xBF58476D1CE4E5B9ULL);
  h ^= h >> 31;
  return static_cast<float>(static_cast<int>(h % 3U) - 1);
}

// Uniform in [-1, 1) from a 64-bit hash of (seed, index): the timed GEMMs' operands.
PLANSIM_HD inline float random_operand(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t h = (index + 0x632BE59BD9B4E019ULL) * 0x9E3779B97F4A7C15ULL + seed * 0xD1B54A32D192ED03ULL;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  return static_cast<float>(static_cast<double>(h >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

}  // namespace plansim::hw
