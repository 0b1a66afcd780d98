#include "sim/plan/program.hpp"

#include "sim/core/assert.hpp"

namespace plansim {

const char* to_string(StreamKind s) {
  switch (s) {
    case StreamKind::compute: return "compute";
    case StreamKind::tp_comm: return "tp-comm";
    case StreamKind::cp_comm: return "cp-comm";
    case StreamKind::ep_comm: return "ep-comm";
    case StreamKind::dp_comm: return "dp-comm";
    case StreamKind::pp_comm: return "pp-comm";
    case StreamKind::d2h: return "d2h-copy";
    case StreamKind::h2d: return "h2d-copy";
  }
  return "?";
}

const char* to_string(CommOp c) {
  switch (c) {
    case CommOp::all_reduce: return "all_reduce";
    case CommOp::all_gather: return "all_gather";
    case CommOp::reduce_scatter: return "reduce_scatter";
    case CommOp::all_to_all: return "all_to_all";
    case CommOp::send_recv: return "send_recv";
  }
  return "?";
}

std::vector<uint32_t> global_op_offsets(const CompiledPlan& plan) {
  std::vector<uint32_t> first;
  first.reserve(plan.programs.size() + 1);
  size_t total = 0;
  for (const Program& p : plan.programs) {
    first.push_back(static_cast<uint32_t>(total));
    total += p.ops.size();
  }
  PLANSIM_ASSERT(total < (size_t{1} << 31), "too many ops for 31-bit op indices");
  first.push_back(static_cast<uint32_t>(total));
  return first;
}

}  // namespace plansim
