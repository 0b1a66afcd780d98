#pragma once
// The point-to-point transfers of a compiled plan: a send and a recv meet when they name the same
// (sender, receiver, tag). Shared by the executor (plan/executor_setup.cpp) and the lower bound
// (report/plan_bound.cpp), which each check the pairs against what they need.
#include <cstdint>
#include <vector>

#include "sim/plan/program.hpp"

namespace plansim {

struct P2pEnd {
  uint32_t program = 0;  // index into CompiledPlan::programs
  uint32_t op = 0;       // index into that program's ops
};

struct P2pPair {
  uint32_t src = 0, dst = 0, tag = 0;  // sender rank, receiver rank, tag
  std::vector<P2pEnd> ends;            // the send and recv ops naming them, in (program, op) order
};

// Every (sender, receiver, tag) of the plan's send and recv ops, in (sender, receiver, tag) order.
std::vector<P2pPair> match_send_recv(const CompiledPlan& plan);

}  // namespace plansim
