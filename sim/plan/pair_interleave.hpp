#pragma once
// DualPipe's overlapped F&B chunk pair (sched/dualpipe.cpp) in a program: the forward's ops
// [first, mid) and the backward's [mid, end of program) are emitted one after the other, then
// reordered so their compute ops alternate, each followed by the communication emitted after it
// (its output's collective, the next block's input collective, sends). One pass's communication
// then runs while the other pass computes, and each comm stream (in program order) carries the two
// passes' transfers in the order they become ready. Each pass keeps its own order, so every
// dependency still points to an earlier op; collective sequence numbers are reassigned so they
// still increase in program order on every group (every member reorders identically).
#include <cstdint>
#include <vector>

#include "sim/plan/program.hpp"

namespace plansim {

// Returns new_index: op i of [first, end) is now at new_index[i − first]; the caller remaps any op
// index it keeps. Dependencies inside the program are remapped here.
std::vector<uint32_t> interleave_pair(Program& p, uint32_t first, uint32_t mid);

}  // namespace plansim
