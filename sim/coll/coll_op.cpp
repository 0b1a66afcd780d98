// CollOp names and nccl-tests' bus-bandwidth factors (nccl-tests doc/PERFORMANCE.md).
#include <algorithm>
#include <cctype>

#include "sim/coll/collective_runner.hpp"

namespace plansim {

const char* to_string(CollOp op) {
  switch (op) {
    case CollOp::all_reduce: return "all_reduce";
    case CollOp::all_gather: return "all_gather";
    case CollOp::reduce_scatter: return "reduce_scatter";
    case CollOp::broadcast: return "broadcast";
    case CollOp::reduce: return "reduce";
    case CollOp::gather: return "gather";
    case CollOp::scatter: return "scatter";
    case CollOp::all_to_all: return "all_to_all";
    case CollOp::send_recv: return "send_recv";
  }
  return "?";
}

std::optional<CollOp> coll_op_from_string(const std::string& s) {
  std::string k;
  for (char c : s)
    if (c != '_' && c != '-') k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (k == "allreduce") return CollOp::all_reduce;
  if (k == "allgather") return CollOp::all_gather;
  if (k == "reducescatter") return CollOp::reduce_scatter;
  if (k == "broadcast" || k == "bcast") return CollOp::broadcast;
  if (k == "reduce") return CollOp::reduce;
  if (k == "gather") return CollOp::gather;
  if (k == "scatter") return CollOp::scatter;
  if (k == "alltoall") return CollOp::all_to_all;
  if (k == "sendrecv") return CollOp::send_recv;
  return std::nullopt;
}

double busbw_factor(CollOp op, int n) {
  if (n <= 1) return op == CollOp::all_reduce || op == CollOp::all_gather || op == CollOp::reduce_scatter ||
                            op == CollOp::all_to_all ? 0.0 : 1.0;
  const double d = n;
  switch (op) {
    case CollOp::all_reduce: return 2.0 * (d - 1) / d;
    case CollOp::all_gather:
    case CollOp::reduce_scatter:
    case CollOp::all_to_all: return (d - 1) / d;
    default: return 1.0;
  }
}

}  // namespace plansim
