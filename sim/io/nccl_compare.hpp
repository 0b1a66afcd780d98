#pragma once
// Reads a published nccl-tests table for `plansim collective --compare` (validate/nccl/*.yaml):
//   source: {...}                      # free-form citation (kept verbatim, not interpreted)
//   tables:
//     - name: a100_8gpu_allreduce
//       topology: ../../topologies/dgx-a100.yaml   # relative to this file
//       nodes: 1                       # optional: servers to instantiate
//       op: all_reduce
//       gpus: 8                        # default for rows without a gpus column
//       algo: auto                     # optional (auto)
//       proto: auto                    # optional (auto)
//       harness: torch                 # optional (nccl-tests): the loop that timed it (nccl_model.hpp BenchHarness)
//       calibration: ../calibration/dgx-a100.yaml  # optional, relative to this file
//       columns: [size_B, time_us, algbw_GBps, busbw_GBps]   # size_B and busbw_GBps required; gpus optional
//       rows: [[32768, 43.83, 0.75, 1.31], ...]
// Free-form keys (context, notes, doc_line, source, published_algo) are accepted and ignored.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/coll/nccl_model.hpp"
#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace plansim::io {

struct CompareRow {
  Bytes bytes;
  int gpus = 0;
  double busbw_GBps = 0;
  int line = 0;  // for messages
  SourcePos pos;
};

struct CompareTable {
  std::string name;
  std::filesystem::path topology;
  std::optional<int> nodes;
  std::string op;
  SourcePos op_pos;
  std::string algo = "auto";
  std::string proto = "auto";
  BenchHarness harness = BenchHarness::nccl_tests;
  std::optional<std::filesystem::path> calibration;
  std::vector<CompareRow> rows;
};

std::vector<CompareTable> load_nccl_compare(const std::filesystem::path& file);
// Same, from text (fuzzing, tests); relative paths are resolved against `name`'s directory.
std::vector<CompareTable> parse_nccl_compare(const std::string& text, const std::string& name);

}  // namespace plansim::io
