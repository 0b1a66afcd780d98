#pragma once
// `plansim collective --compare LOG`: an nccl-tests log (text or -J JSON, io/nccl_tests_reader.hpp) against
// the simulator. The system is --topology (with --nodes, else the log's node count; --calibration layered
// as io/collective_calibration.hpp says); the group is the log's ranks. Prints, per run, predicted vs
// measured (out-of-place) busbw per size with the error, and the mean and max |error| per size band
// (< 1 MiB, 1-64 MiB, >= 64 MiB).
#include <string>

namespace plansim::app {

struct LogCompareOptions {
  std::string log;
  std::string topology;
  int nodes = 0;           // 0: the log's node count
  int gpus = 0;            // 0: the log's rank count (required when the log lists no devices)
  std::string op;          // empty: what the log says
  std::string algo = "auto", proto = "auto";  // "auto": NCCL_ALGO / NCCL_PROTO when the log shows them
  std::string calibration;
};

int run_log_compare(const LogCompareOptions& o);

}  // namespace plansim::app
