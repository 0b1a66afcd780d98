#pragma once
// Reads a PyTorch profiler (Kineto) Chrome trace — what torch.profiler's export_chrome_trace writes for a
// Megatron or torchtitan job — into per-iteration GPU time per op class, so `plansim validate` can compare
// it with a simulated run of the same plan. Documented trace fields only:
//   {"distributedInfo": {"rank": R, ...}?, "traceEvents": [{"ph": "X", "cat", "name", "ts" (us), "dur" (us),
//    "args": {"correlation"?, "device"?, "stream"?}}, ...]}
// Iterations: the "ProfilerStep#N" ranges (cat "user_annotation" or "cpu_op"); a GPU kernel belongs to the
// step whose range holds the runtime call that launched it (args.correlation of the "cuda_runtime" /
// "cuda_driver" event), else the step whose range holds its own start. Kernels (cat "kernel") map by name
// to a class: NCCL (ncclKernel*/ncclDevKernel*: collective per op — all_reduce, all_gather,
// reduce_scatter, broadcast, reduce, all_to_all — or p2p for Send/Recv/SendRecv), attention (flash, fmha,
// sdpa, attention, attn), GEMM (gemm, cutlass, cublas, xmma, nvjet, matmul, wgrad, dgrad), else
// elementwise. Memory copies and sets are not kernels and are left out.
// Errors: ConfigError at file:line:col (JSON syntax, a malformed event).
#include <filesystem>
#include <map>
#include <string>

#include "sim/calib/validate.hpp"

namespace plansim::io {

struct KinetoSummary {
  std::string source;
  int rank = 0;                 // distributedInfo.rank (0 when absent)
  int steps = 0;                // ProfilerStep ranges
  double iteration_s = 0;       // median ProfilerStep duration
  std::map<std::string, double> class_s;  // op class -> mean GPU kernel time per step (gemm, attention, ...)
  std::map<std::string, double> nccl_s;   // NCCL op (all_reduce, ..., send_recv) -> mean time per step
  int kernels = 0;              // kernels inside a step
};

// The kernel name's op class (gemm | attention | elementwise | collective | p2p) and, for NCCL, its op.
std::string kernel_class(const std::string& name);
std::string nccl_op(const std::string& name);  // "" when not NCCL

// Whether the file is a Chrome trace (a top-level "traceEvents"), read from its beginning.
bool is_chrome_trace(const std::filesystem::path& path);

KinetoSummary read_kineto_trace(const std::filesystem::path& path);
KinetoSummary read_kineto_trace_text(const std::string& text, const std::string& name);

// Both sides of a comparison at the trace's granularity, one op per class total (name "<class> total")
// and per NCCL op ("nccl <op>"), on the trace's rank: the trace as measured timings, a simulated report
// aggregated the same way (its compute ops counted in their report class). Throws ConfigError when the
// simulated report has no op on that rank.
calib::ReportTimings kineto_timings(const KinetoSummary& k);
calib::ReportTimings aggregate_like_kineto(const calib::ReportTimings& sim, int rank);

}  // namespace plansim::io
