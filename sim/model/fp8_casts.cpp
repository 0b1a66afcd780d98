#include "sim/model/fp8_casts.hpp"

#include <algorithm>

namespace plansim {

const char* to_string(Fp8Scaling s) {
  switch (s) {
    case Fp8Scaling::delayed: return "delayed";
    case Fp8Scaling::tensorwise: return "tensorwise";
    case Fp8Scaling::rowwise: return "rowwise";
  }
  return "?";
}

std::optional<Fp8Scaling> fp8_scaling_from_string(const std::string& s) {
  if (s == "delayed") return Fp8Scaling::delayed;
  if (s == "tensorwise") return Fp8Scaling::tensorwise;
  if (s == "rowwise") return Fp8Scaling::rowwise;
  return std::nullopt;
}

namespace {
// torchao tensorwise: one activation-like operand of `elems` elements, `shard` of it cast before an fp8
// all-gather (CastSite). Adds the amax pass, its second stage and the cast to `cast_pass`, and where
// gathered the fp8 transpose to `wgrad`.
void tensorwise_activation(double elems, double shard, QuantiseCost& cast_pass, QuantiseCost& wgrad) {
  constexpr double amax = 2, cast_one = 2 + 1, cast_both = 2 + 1 + 1, transpose = 1 + 1;
  if (shard >= 1) {
    cast_pass.bytes += (amax + cast_both) * elems;
  } else {
    cast_pass.bytes += (amax + cast_one) * elems * shard;
    wgrad.bytes += transpose * elems;
    wgrad.kernels += 1;
  }
  cast_pass.kernels += 3;  // amax, its second stage, the cast
}
}  // namespace

GemmCasts fp8_gemm_casts(Fp8Scaling mode, double m, double k, double n, const CastSite& site, int micro_batches) {
  const double x = m * k, w = k * n, g = m * n;  // elements of the input, weight and output gradient
  constexpr double hp = 2, f8 = 1;               // bf16 source, fp8 result
  GemmCasts c;
  switch (mode) {
    case Fp8Scaling::tensorwise: {
      constexpr double amax = hp, one_layout = hp + f8;
      tensorwise_activation(x, site.input_shard, c.forward, c.wgrad);
      tensorwise_activation(g, site.gradient_shard, c.dgrad, c.wgrad);
      if (site.weight_shard >= 1) {
        c.forward.bytes += (amax + one_layout) * w;  // amax, second stage, forward cast
        c.forward.kernels += 3;
        c.dgrad.bytes += one_layout * w;  // the weight again, in the other layout
        c.dgrad.kernels += 1;
      } else {
        constexpr double transpose = f8 + f8;
        c.forward.bytes += one_layout * w * site.weight_shard;  // the shard, before the all-gather
        c.forward.kernels += 1;
        c.dgrad.bytes += one_layout * w * site.weight_shard + transpose * w;  // re-gather; other layout
        c.dgrad.kernels += 2;
      }
      break;
    }
    case Fp8Scaling::rowwise: {
      constexpr double cast_and_copy = hp + f8 + hp, cast = hp + f8, transpose = hp + hp;
      c.forward = {cast_and_copy * x + cast * w, 2};
      c.dgrad = {cast_and_copy * g + (transpose + cast) * w, 3};
      c.wgrad = {cast * x + cast * g, 2};
      break;
    }
    case Fp8Scaling::delayed: {
      constexpr double cast_transpose = hp + 2 * f8;
      const double per_micro_batch = 1.0 / std::max(1, micro_batches);
      c.forward = {(site.input_fused ? 0 : cast_transpose * x) + per_micro_batch * cast_transpose * w,
                   (site.input_fused ? 0 : 1) + per_micro_batch};
      if (!site.gradient_fused) c.dgrad = {cast_transpose * g, 1};
      break;
    }
  }
  return c;
}

}  // namespace plansim
