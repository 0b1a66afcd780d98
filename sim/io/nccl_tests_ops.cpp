#include "sim/io/nccl_tests_ops.hpp"

#include <cctype>

namespace plansim::io {

const std::vector<std::string>& nccl_tests_ops() {
  static const std::vector<std::string> ops = {"all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                               "reduce",     "all_to_all", "send_recv"};
  return ops;
}

double nccl_tests_busbw_factor(const std::string& op, int nranks) {
  const double n = nranks;
  if (op == "all_reduce") return 2.0 * (n - 1.0) / n;
  if (op == "all_gather" || op == "reduce_scatter" || op == "all_to_all") return (n - 1.0) / n;
  return 1.0;
}

std::optional<std::string> nccl_tests_op_from_name(const std::string& name) {
  std::string k = name;
  if (const auto slash = k.find_last_of('/'); slash != std::string::npos) k = k.substr(slash + 1);
  for (const char* suffix : {"_perf_mpi", "_perf"})  // the binaries: all_reduce_perf, all_reduce_perf_mpi
    if (const std::string s = suffix; k.size() > s.size() && k.compare(k.size() - s.size(), s.size(), s) == 0) {
      k.resize(k.size() - s.size());
      break;
    }
  std::string key;
  for (const char c : k)
    if (c != '_' && c != '-') key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (key == "allreduce") return "all_reduce";
  if (key == "allgather") return "all_gather";
  if (key == "reducescatter") return "reduce_scatter";
  if (key == "broadcast" || key == "bcast") return "broadcast";
  if (key == "reduce") return "reduce";
  if (key == "alltoall") return "all_to_all";
  if (key == "sendrecv") return "send_recv";
  return std::nullopt;
}

}  // namespace plansim::io
