#include "sim/plan/program.hpp"

namespace plansim {

const char* to_string(StreamKind s) {
  switch (s) {
    case StreamKind::compute: return "compute";
    case StreamKind::tp_comm: return "tp-comm";
    case StreamKind::cp_comm: return "cp-comm";
    case StreamKind::ep_comm: return "ep-comm";
    case StreamKind::dp_comm: return "dp-comm";
    case StreamKind::pp_comm: return "pp-comm";
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

}  // namespace plansim
