#pragma once
// `plansim calibrate BENCH... --topology T`: fits the NCCL model's per-system parameters (not one
// α/B line per group) to measured collectives, by running the model itself (measure_collective) on
// the system's topology:
//   * the efficiency of the link kind that bounds the measured groups at large sizes (network when the
//     groups span servers, NVLS when `auto` runs NVLS there, else NVLink or PCIe), searched on a grid of
//     0.01 over [0.05, 1];
//   * the per-call latencies (nccl_model.hpp): device latency x (every call) and the benchmark loop's
//     launch floor L, predicted t = max(L, t_model + x), least squares of the relative residuals on a
//     grid. nccl-tests tables identify L where their small sizes sit on a flat floor (host-bound) and x
//     from the rows above it; L stays 0 ("not identified") when no floor binds. Where the rows hold both
//     a torch.distributed loop's timings and another loop's, a torch loop's per-call host cost y is fitted
//     too (added to its rows: t = max(L, t_model + x + y)); else y stays at `start`.
//   When the groups span servers the latency fitted is instead NCCL's per-network-step latency
//   (net_latency: tuning.cc's graph latencyInter, paid on each of the 2 nNodes network steps of a ring
//   all-reduce, twice with Simple), which scales with the node count; the device latency stays at `start`.
//   Rows inside one server and rows spanning servers together (a system's 1-node and N-node tables) are
//   fitted in two stages: the server stage as above on the rows inside one server, then the network
//   efficiency and per-network-step latency on the spanning rows, the server stage's values held.
//   When some rows are >= 64 MiB, the efficiency is chosen on those rows alone (the bandwidth plateau,
//   with the best additive latency) and the latencies then on the rows below 64 MiB (none: left at 0).
// Every other parameter stays at `start` (NCCL's tuning.cc constants, or the profile given). Residuals
// are reported per sample, and leave-one-out: by input file (one nccl-tests table per file) when there
// are several, else by sample.
#include <optional>
#include <string>
#include <vector>

#include "sim/calib/measurements.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::calib {

struct NcclFitResidual {
  const CollectiveSample* sample = nullptr;
  double predicted_s = 0;
  double loo_predicted_s = 0;  // predicted by the fit without the sample's fold
};

struct NcclFit {
  NcclModelParams params;          // start with the fitted efficiency and per-call latencies
  std::string efficiency_key;      // nvlink, pcie, network or nvls
  double efficiency = 0;
  double device_latency_us = 0;
  double launch_overhead_us = 0;
  // A torch.distributed loop's per-call host cost (NcclModelParams::torch_loop_overhead_us): fitted when the
  // rows hold both loops' timings (torch sweeps and nccl-tests tables), else the start profile's.
  double torch_loop_overhead_us = 0;
  bool torch_overhead_fitted = false;
  // Groups spanning servers: the latency is fitted as NCCL's per-network-step latency (graph
  // latencyInter, profile key net_latency), the device latency kept at the start profile's.
  bool fits_net_latency = false;
  double net_latency_us = 0;
  int launch_bound_rows = 0;       // rows whose prediction is the launch floor (0: L not identified)
  // Two stages (rows inside one server and rows spanning servers): the fields above are the server
  // stage's, this the network stage's, fitted on the spanning rows with the server stage held.
  struct NetworkStage {
    double efficiency = 0;
    double net_latency_us = 0;
  };
  std::optional<NetworkStage> network;
  std::vector<NcclFitResidual> residuals;
  std::string loo_by;              // "file" or "sample"
};

// Throws ConfigError when there are no collective samples or a sample's algorithm is unknown.
NcclFit fit_nccl_model(const Measurements& m, const Topology& topo, const NcclModelParams& start);

// The residual table (size, ranks, measured and predicted busbw, error, leave-one-out error).
std::string format_nccl_fit(const NcclFit& f);
// A calibration profile with the fitted `collectives:` section.
std::string nccl_fit_profile_yaml(const NcclFit& f, const Measurements& m, const std::string& topology,
                                  const std::vector<std::string>& applies_to, const std::string& start = "");

}  // namespace plansim::calib
