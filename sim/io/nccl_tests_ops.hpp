#pragma once
// The collectives nccl-tests measures, as plansim names them (bench JSON's `op`, coll_op_from_string), the
// nccl-tests binary of each, and nccl-tests' bus-bandwidth factor. Shared by the bench JSON reader and the
// nccl-tests log reader; io-only (no sim/coll dependency, so the fuzz harnesses link without it).
#include <optional>
#include <string>
#include <vector>

namespace plansim::io {

// all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv.
const std::vector<std::string>& nccl_tests_ops();

// nccl-tests' busbw / algbw (src/<op>.cu GetBw, NVIDIA/nccl-tests): all_reduce 2(n-1)/n; all_gather,
// reduce_scatter, all_to_all (n-1)/n; broadcast, reduce, send_recv 1. 0 for a one-rank all_* op.
double nccl_tests_busbw_factor(const std::string& op, int nranks);

// The op of a name: plansim's (all_reduce), a spelling coll_op_from_string reads (allreduce, alltoall,
// sendrecv), or a binary's (all_reduce_perf, alltoall_perf_mpi, ./build/sendrecv_perf). nullopt otherwise.
std::optional<std::string> nccl_tests_op_from_name(const std::string& name);

}  // namespace plansim::io
