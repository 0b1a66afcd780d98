#pragma once
// Measured microbenchmark data, as read from plansim-hw's bench JSON (io/bench_reader.hpp; schema in
// hw/README.md). Each sample keeps the position of its row so fits can point at the data they used.
#include <string>
#include <vector>

#include "sim/coll/nccl_model.hpp"
#include "sim/core/error.hpp"

namespace plansim::calib {

// One timing of a collective (bench nccl) or of a GPU-to-GPU copy (bench p2p, op "p2p_copy").
struct CollectiveSample {
  std::string op;         // all_reduce, all_gather, ..., p2p_copy
  std::string algorithm;  // NCCL_ALGO the bench ran with ("auto" when NCCL chose); for p2p "src->dst"
  int nranks = 0;
  double size_bytes = 0;    // nccl-tests' size (whole buffer)
  double busbw_factor = 1;  // nccl-tests' factor: bytes on the bus per rank = size * factor
  double time_s = 0;
  SourcePos pos;
  BenchHarness harness = BenchHarness::nccl_tests;  // the loop that timed it (nccl_model.hpp)
};

struct GemmSample {
  std::string dtype;
  double flops = 0;
  double time_s = 0;
  double peak_flops = 0;  // 0 = unknown
  SourcePos pos;
  double m = 0, n = 0, k = 0;  // the shape (0 = not given: the FLOPs curve only, no shape model)
};

struct HbmSample {
  double bytes_moved = 0;  // read + write
  double time_s = 0;
  SourcePos pos;
};

struct Measurements {
  std::vector<std::string> sources;  // files read, in order
  std::string device;                // device name of the first file
  std::vector<CollectiveSample> collectives;
  std::vector<GemmSample> gemms;
  std::vector<HbmSample> hbm;
};

}  // namespace plansim::calib
