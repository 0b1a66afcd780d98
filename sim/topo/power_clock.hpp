#pragma once
// The tensor-core clock a GPU sustains under a board power limit below its rated TDP (README "Power
// limit"). A GPU's published dense peaks assume the clock its tensor cores hold at the rated board
// power (H100 SXM: 989.4 TFLOP/s = 540,672 FLOP/clock at 1.83 GHz "(low precision)" at 700 W, below the
// 1.98 GHz "(high precision)" clock; glennklockwood.com/garden/processors/h100, from NVIDIA's Hopper whitepaper);
// a lower limit (`nvidia-smi -pl`, e.g. Meta's Grand Teton H100s at 500 W) makes the firmware lower the
// clock until the board draws no more than the limit. Dynamic power is C·V²·f with the voltage rising
// with the clock, so power grows as a power of the clock; this model holds
//     f(limit) / f(tdp) = (limit / tdp)^kPowerClockExponent      (limit <= tdp)
// with the exponent taken from two GH100 boards NVIDIA rates at different powers, both with 132 SMs /
// 16,896 CUDA cores per GPU (NVIDIA H100 datasheet, H100 SXM vs H100 NVL; the NVL's core count as spec
// aggregators such as gpu.blog list it): SXM 700 W, 989.4 dense BF16 TFLOP/s (1,979 with
// sparsity); NVL 400 W, 835.5 (1,671 with sparsity), so 835.5 / 989.4 = (400 / 700)^α gives α = 0.3021.
// (The textbook cube law, V ∝ f so P ∝ f³, gives 1/3: at 500 of 700 W 0.894 instead of 0.903.)
// torchtitan's Grand Teton benchmark (benchmarks/llama3_h100_202412_torchtitan.md, footnote 2) states
// the same bracket for its 500 W H100s: "the actual peak TFLOPs number is between SXM and NVL".
// HBM bandwidth is not scaled: the memory clock is not the SM clock.

namespace plansim {

// ln(835.5 / 989.4) / ln(400 / 700), the H100 NVL / SXM datasheet pair above. Used for every GPU: no such
// pair of ratings is held for the others.
inline constexpr double kPowerClockExponent = 0.3021;

// Sustained tensor-core clock at `limit_watts` relative to the clock at `tdp_watts`: 1 when either is
// unknown (<= 0) or the limit is at or above the TDP (the clock cannot rise past the one the peaks assume).
double power_capped_clock_factor(double limit_watts, double tdp_watts);

}  // namespace plansim
