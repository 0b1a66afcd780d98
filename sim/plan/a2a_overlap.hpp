#pragma once
// Megatron-Core's expert-parallel all-to-all overlap (`overlap_moe_expert_parallel_comm`, Megatron-Bridge
// `moe_a2a_overlap`; the "combined 1F1B" schedule, after DeepSeek's DualPipe, arXiv 2412.19437 Sec. 3.2.1):
// in the steady state a stage runs the forward of one micro-batch and the backward of another as one
// merged step, layer by layer, so each pass's EP all-to-all (and its other communication) runs while the
// other pass computes. In plansim terms: every F that the stage's order follows with a B of another
// (micro-batch, chunk) becomes a `paired` F (plan/pair_interleave.hpp interleaves the two passes' ops).
// Where an F is followed by its own B (no pipeline: F0 B0 F1 B1 ...), the next F is moved ahead of that
// B, as Megatron's no-pipelining schedule does with the overlap on (F0, F1&B0, F2&B1, ..., B(n−1)): one
// more micro-batch's activations in flight. Megatron requires a virtual pipeline (interleaved) when
// pp > 1 (Megatron-Bridge comm_overlap.py); the scenario loader enforces that.
#include "sim/sched/schedule.hpp"

namespace plansim {

void pair_for_a2a_overlap(StageOrders& orders);

}  // namespace plansim
