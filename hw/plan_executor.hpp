#pragma once
// Runs a LaunchPlan (launch_plan.hpp) on real GPUs: one thread per local GPU (one NCCL rank each),
// one CUDA stream per stream of the rank (the compute stream at the lowest priority, communication
// higher), every launch after cudaStreamWaitEvent on its deps' end events, start and end events
// around every op. Communicators: ncclCommSplit of the world communicator for every LaunchPlan
// communicator, in the plan's order on every rank. Each iteration starts after a one-element
// all-reduce on the world communicator (a device-side barrier) and a zero event on every rank; the
// host only enqueues inside an iteration and synchronises at its end.
#include <vector>

#include "hw/kernels.hpp"
#include "hw/launch_plan.hpp"
#include "hw/measured.hpp"
#include "hw/nccl_bootstrap.hpp"

namespace plansim::hw {

struct ExecuteOptions {
  GemmDtype dtype = GemmDtype::kBf16;
  int warmup = 1;  // untimed iterations
  int iters = 3;   // timed iterations (spans are their mean)
};

// spans[rank][op] for every rank of the world (summed over MPI processes, each filling its own ranks).
// `world` must have exactly plan.world ranks.
std::vector<std::vector<OpSpan>> execute_on_gpus(const LaunchPlan& plan, const ExecuteOptions& opt,
                                                 const ProcessGroup& procs, const NcclWorld& world);

}  // namespace plansim::hw
