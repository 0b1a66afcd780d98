#pragma once
// The selftest's check of `run`'s fused attention (cudnn_sdpa.hpp): a causal forward and backward on a small
// shape against a host reference in fp32 (built only with cuDNN).
namespace plansim::hw {

// 0 when O, dQ, dK and dV agree with the reference within bf16's rounding (printed per tensor), else 1.
int run_attention_check();

}  // namespace plansim::hw
