#pragma once
// `plansim-hw bench nccl`: nccl-tests-style sweep of one collective (see hw/README.md).
#include <cstddef>
#include <string>

#include "hw/bench_spec.hpp"

namespace plansim::hw {

class ProcessGroup;

struct NcclBenchOptions {
  NcclOp op = NcclOp::kAllReduce;
  std::size_t min_bytes = 8;
  std::size_t max_bytes = 128 * 1024 * 1024;
  std::size_t factor = 2;
  int gpus = 0;  // GPUs per process; 0 = all visible (one process) or 1 (several MPI processes)
  int iters = 20;
  int warmup = 5;
  std::string json;  // "" = no JSON
  double timeout_s = 0;  // > 0: abort when the sweep takes longer (a hung peer)
};

// Runs the sweep, prints the table on process 0's stdout; returns 0, or 1 if any result was wrong.
int run_nccl_bench(const NcclBenchOptions& opt, const ProcessGroup& procs);

}  // namespace plansim::hw
