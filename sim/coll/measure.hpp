#pragma once
// One collective, alone on a fresh simulated network: what `plansim collective` prints per size and
// what `plansim plot busbw` draws. GPUs 0..gpus−1 of the topology (host-major) form the group;
// send_recv goes from GPU 0 to GPU gpus−1. It is the benchmark's view (nccl-tests, all_reduce_bench): calls
// issued back to back by a host that runs ahead, so the time per call is at least the model's
// launch_overhead_us (nccl_model.hpp) when it was measured under the same loop (launch_overhead_harness:
// a torch loop's floor is not nccl-tests'), and a torch loop's time per call also holds the host's issue of
// the call (torch_loop_overhead_us); a training run (CollectiveRunner) pays neither.
#include <string>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

struct CollectiveMeasurement {
  Bytes bytes;
  Time time;
  std::string algorithm;
  std::string protocol;
  [[nodiscard]] double algbw_GBps() const;               // bytes / time, 1e9 B/s
  [[nodiscard]] double busbw_GBps(CollOp op, int n) const;  // algbw × nccl-tests' factor
};

// Throws ConfigError (naming --gpus) when the topology has fewer than `gpus` GPUs. `harness`: the loop
// timed; a torch loop adds torch_loop_overhead_us to the call, and the model's launch floor applies when it
// was measured under that loop (its launch_overhead_harness): t = max(floor, device time [+ torch overhead]).
CollectiveMeasurement measure_collective(const Topology& topo, const NcclModelParams& model, CollOp op, int gpus,
                                         Bytes bytes, const std::string& algorithm = "auto",
                                         const std::string& protocol = "auto",
                                         BenchHarness harness = BenchHarness::nccl_tests);

}  // namespace plansim
