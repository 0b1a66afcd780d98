#pragma once
// `plansim-hw bench hbm` (device-local copy bandwidth) and `bench p2p` (copies between local GPUs).
#include <cstddef>
#include <string>

namespace plansim::hw {

struct CopyBenchOptions {
  std::size_t min_bytes = 1 << 20;
  std::size_t max_bytes = std::size_t{1} << 30;
  std::size_t factor = 4;
  int device = 0;  // hbm only
  int iters = 20;
  int warmup = 5;
  std::string json;
};

// HBM: cudaMemcpyAsync device-to-device on one GPU; bandwidth counts read + write (2 x size / time).
int run_hbm_bench(const CopyBenchOptions& opt);
// P2P: cudaMemcpyPeerAsync for every ordered pair of local GPUs (peer access enabled where possible);
// bandwidth = size / time; latency = time of the smallest size.
int run_p2p_bench(const CopyBenchOptions& opt);

}  // namespace plansim::hw
