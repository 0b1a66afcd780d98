#pragma once
// Reads nccl-tests output as it is printed (README "nccl-tests logs"): the stdout of any *_perf binary,
// single node or multi-node from mpirun/srun logs, and the JSON file of `-J FILE`.
//
// Text (src/util.cu and common.cu of NVIDIA/nccl-tests; older 2.x releases differ as noted):
//   # nccl-tests version 2.17.6 nccl-headers=22803 nccl-library=22803      (newer releases only)
//   # Collective test starting: all_reduce_perf                              (newer releases only)
//   # nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 ...
//   # Using devices
//   #  Rank  0 Group  0 Pid  12345 on   node-a device  0 [0000:18:00] NVIDIA H100 80GB HBM3
//   #   Rank  0 Pid  1320 on node-a device  0 [0x00] Tesla V100-SXM2-16GB    (older: no Group)
//   #       size   count   type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
//   #        (B) (elements)                         (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
//          1024     256   float     sum      -1    20.1    0.05    0.09      0    19.8    0.05    0.09      0
//   # Out of bounds values : 0 OK
//   # Avg bus bandwidth    : 95.3
// The column-name line decides the layout: older releases have no `root` column and an `error` column (the
// largest deviation, not a count) in place of `#wrong`; `-C 1` prints `cputime`; `-T 1` adds a timestamp.
// `#wrong` is a count of wrong elements, or `N/A` when validation is off (`-c 0`). Lines may carry a launcher
// prefix, which is stripped and used to tell processes apart: OpenMPI's `--tag-output` `[1,0]<stdout>:`,
// srun's `--label` `0: `, Intel MPI's `[0] `, an ISO timestamp, kubectl's `--prefix` `[pod/NAME/CONTAINER] `,
// pdsh's `HOST: `. A log copied from rendered Markdown has lost its '#'s: a `nThread N nGpus N` line opens
// such a run and its other header lines are known by their first word. Lines that are not nccl-tests' own (NCCL
// INFO/WARN, launcher chatter, a shell trace) are skipped; inside a table, a line that starts like a result
// row but does not read as one is an error. A file may hold several runs (one per `# nThread` header).
//
// JSON (`-J FILE`, util.cu, "version": 1): config (nthreads, ngpus, devices[] with hostname and
// device_info), results[] (size, count, type, redop, root, out_of_place / in_place {time | cpu_time, alg_bw,
// bus_bw, nwrong}), out_of_bounds, average_bus_bandwidth; the op comes from args[0] (the binary's name).
//
// Every error is a ConfigError at file:line (":col" in JSON).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/calib/measurements.hpp"
#include "sim/core/error.hpp"

namespace plansim::io {

// One placement's result (out-of-place or in-place) of a row.
struct NcclTestsResult {
  bool present = false;
  double time_us = 0;
  double algbw_GBps = 0;
  double busbw_GBps = 0;
  std::optional<double> wrong;  // #wrong; nullopt when N/A (validation off) or an old `error` column
  std::optional<double> max_error;  // older releases: the `error` column (largest deviation)
};

struct NcclTestsRow {
  double size_bytes = 0;
  long long count = 0;
  std::string type;
  std::string redop;  // "sum", ..., "none"; empty when the release printed no redop column
  int root = -1;
  bool root_printed = false;  // older releases print no root column
  NcclTestsResult out_of_place, in_place;
  SourcePos pos;
};

struct NcclTestsDevice {
  int rank = 0;
  std::string host;
  int device = 0;
  std::string model;  // as CUDA names it, e.g. "NVIDIA H100 80GB HBM3"
  SourcePos pos;
};

struct NcclTestsRun {
  std::string file;
  SourcePos pos;            // the `# nThread` header (JSON: the document)
  std::string format;       // "text" or "json"
  std::string op;           // plansim's name: all_reduce, all_gather, ..., send_recv
  std::string op_source;    // how the op was known: "the log's 'Collective test starting' line", ...
  std::string program;      // e.g. "all_reduce_perf" (empty when the log does not say)
  std::string nccl_version; // e.g. "2.21.5" (empty when the log does not say)
  std::string algorithm = "auto";  // NCCL_ALGO when the log shows it set, lower-case
  std::string protocol = "auto";   // NCCL_PROTO when the log shows it set
  BenchHarness harness = BenchHarness::nccl_tests;  // the loop that timed it: nccl-tests, or a bench file's config.harness
  int nthreads = 1, ngpus = 1;
  std::vector<NcclTestsDevice> devices;  // in rank order
  std::vector<std::string> hosts;        // distinct hostnames, in order of first appearance
  int nranks = 0;
  std::string gpu_model;                 // the first device's model
  bool cputime = false;                  // `-C 1`: times are CPU times
  std::vector<NcclTestsRow> rows;
  std::optional<long long> out_of_bounds;  // `# Out of bounds values : N`
  SourcePos out_of_bounds_pos;
  std::optional<double> avg_busbw_GBps;   // `# Avg bus bandwidth : X`

  [[nodiscard]] int nodes() const { return hosts.empty() ? 1 : static_cast<int>(hosts.size()); }
};

// What the caller knows better than the log (command-line flags). An empty / zero field is not given.
struct NcclTestsHints {
  std::string op;  // any spelling coll_op_from_string reads (all_reduce, allreduce, alltoall, ...)
  int nranks = 0;
};

// True when the text reads as nccl-tests output (a `# nThread` header, or a JSON object with "results"
// and "config"): how `collective --compare` and `calibrate` tell a log from their other inputs.
bool looks_like_nccl_tests(const std::string& text);
bool looks_like_nccl_tests_file(const std::filesystem::path& path);

// All runs in the file (at least one; a file with none is an error).
std::vector<NcclTestsRun> load_nccl_tests(const std::filesystem::path& path, const NcclTestsHints& hints = {});
std::vector<NcclTestsRun> parse_nccl_tests(const std::string& text, const std::string& name,
                                           const NcclTestsHints& hints = {});

// Appends one CollectiveSample per out-of-place row of nonzero size (time, nccl-tests' busbw factor for the
// op and rank count, the row's position) and the file to m.sources; m.device from the first run's GPU
// model. A row whose #wrong is not 0, or a run whose `Out of bounds values` is not 0, is an error: a
// wrong result's time is not a measurement.
void append_measurements(const std::vector<NcclTestsRun>& runs, calib::Measurements& m);

// Reads the file (text or JSON) straight into `m`, as io::read_bench_file does for bench JSON.
void read_nccl_tests_file(const std::filesystem::path& path, calib::Measurements& m);

// plansim-hw bench JSON (io/bench_reader.hpp), for `collective --compare`: true when the file is a JSON
// object with "bench" and "schema_version"; its nccl rows as runs, one per (op, algorithm, ranks), by size
// (no hosts: one node unless the caller says otherwise; busbw from the time and nccl-tests' factor).
bool looks_like_bench_file(const std::filesystem::path& path);
std::vector<NcclTestsRun> runs_from_bench_file(const std::filesystem::path& path);

}  // namespace plansim::io
