#pragma once
// Runs a LaunchPlan (launch_plan.hpp) on real GPUs: one thread per local GPU (one NCCL rank each), each
// driving a RankRunner (rank_runner.hpp) over the CUDA backend (cuda_backend.hpp). Phases: setup on
// every rank, then the ranks agree (over threads and MPI processes) that all succeeded before any enters
// NCCL; then splits, connections and iterations under a watchdog (run_control.hpp): a failing rank is
// printed at once, an asynchronous NCCL error or the --timeout aborts every communicator and, under MPI,
// the job (MPI_Abort).
#include <vector>

#include "hw/launch_plan.hpp"
#include "hw/measured.hpp"
#include "hw/nccl_bootstrap.hpp"

namespace plansim::hw {

struct ExecuteOptions {
  GemmDtype dtype = GemmDtype::kBf16;
  int warmup = 1;            // untimed iterations
  int iters = 3;             // timed iterations
  bool graph = true;         // capture each rank's iteration in a CUDA graph
  bool fused_attention = true;
  double timeout_s = 0;      // 0 = none
};

struct ExecuteResult {
  std::vector<std::vector<OpSpan>> spans;                    // [rank][op], mean over timed iterations
  std::vector<std::vector<std::vector<OpSpan>>> per_iteration;  // [iteration][rank][op] (process 0: all ranks)
};

// `world` must have exactly plan.world ranks. Throws on failure (after aborting the others).
ExecuteResult execute_on_gpus(const LaunchPlan& plan, const ExecuteOptions& opt, const ProcessGroup& procs,
                              NcclWorld& world);

}  // namespace plansim::hw
