#include "hw/gemm_dtype.hpp"

#include <fmt/format.h>

#include <cmath>

namespace plansim::hw {

ElementBytes element_bytes(GemmDtype d) {
  switch (d) {
    case GemmDtype::kFp32:
    case GemmDtype::kTf32: return {4, 4};
    case GemmDtype::kFp8: return {1, 2};
    case GemmDtype::kBf16:
    case GemmDtype::kFp16: return {2, 2};
  }
  return {2, 2};
}

int min_compute_capability(GemmDtype d) {
  switch (d) {
    case GemmDtype::kFp8: return 89;
    case GemmDtype::kBf16:
    case GemmDtype::kTf32: return 80;
    case GemmDtype::kFp16:
    case GemmDtype::kFp32: return 0;
  }
  return 0;
}

std::string gemm_tiling_problem(double m, double n, double k, GemmDtype d) {
  if (d != GemmDtype::kFp8) return {};
  auto off = [](double v) { return std::fmod(std::round(v), 16.0) != 0; };
  if (!off(m) && !off(n) && !off(k)) return {};
  return fmt::format("an fp8 GEMM of {}x{}x{} cannot be tiled by cuBLASLt (fp8 needs m, n and k multiples of 16); "
                     "change the model's dimensions or run it in bf16 (--set model.dtype=bf16)",
                     m, n, k);
}

}  // namespace plansim::hw
