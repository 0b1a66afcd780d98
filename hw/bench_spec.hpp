#pragma once
// GPU-free description of the NCCL benchmark: the collectives, their nccl-tests conventions (how the
// size maps to element counts, the busbw factor) and the size sweep. Unit-tested without a device.
#include <cstdint>
#include <optional>
#include <string>
#include <string>
#include <string_view>
#include <vector>

namespace plansim::hw {

enum class NcclOp { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kAllToAll, kSendRecv };

const std::vector<NcclOp>& all_nccl_ops();
std::string_view op_name(NcclOp op);                     // "all_reduce", ...
std::optional<NcclOp> parse_op(std::string_view name);   // nullopt for unknown names

// nccl-tests' bus bandwidth factor for n ranks: all_reduce 2(n-1)/n; all_gather, reduce_scatter and
// all_to_all (n-1)/n; broadcast, reduce and send_recv 1.
double busbw_factor(NcclOp op, int nranks);

// Whether the op has an in-place form (all_to_all and send_recv are run out-of-place only).
bool has_in_place(NcclOp op);

// Element counts for a requested size, as nccl-tests: `size` is the whole buffer of the op (the output
// of all_gather, the input of reduce_scatter, each rank's full all_to_all buffer); it is rounded down to
// a multiple of nranks elements for the ops that split it. send_count/recv_count are per rank.
struct OpCounts {
  std::size_t total = 0;       // elements in the op's "size" (the printed size / element size)
  std::size_t send_count = 0;  // elements in each rank's send buffer
  std::size_t recv_count = 0;  // elements in each rank's receive buffer
};
OpCounts op_counts(NcclOp op, std::size_t size_bytes, std::size_t elem_bytes, int nranks);

// "64", "1K", "128M", "2G" -> bytes; K/M/G are powers of 1024 (nccl-tests). Throws std::invalid_argument.
std::size_t parse_size(std::string_view text);

// The sweep min, min*f, min*f^2, ... up to and including max (f >= 2), as nccl-tests -b/-e/-f.
std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes, std::size_t factor);

// algbw (bytes/s) = size / time; busbw = algbw * factor.
struct Bandwidth {
  double algbw = 0;
  double busbw = 0;
};
Bandwidth bandwidth(NcclOp op, std::size_t size_bytes, double seconds, int nranks);

// GEMM shapes "MxNxK" (comma-separated list) for bench gemm; the default covers typical transformer GEMMs.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  [[nodiscard]] double flops() const { return 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k); }
};
std::vector<GemmShape> parse_shapes(std::string_view list);  // throws std::invalid_argument

// The SM clock behind the spec sheet's dense tensor-core TFLOP/s of a known data-centre GPU, identified
// by compute capability (major * 10 + minor) and SM count (A100 1410 MHz, H100/H200 SXM 1830, H100 PCIe
// 1620, H100 NVL 1545, L40S 2520, L4 2040); nullopt for others. Peak FLOP/s use it rather than the
// maximum boost clock the driver reports (1980 MHz on H100 SXM: 8 % above the spec's 989 TFLOP/s).
std::optional<double> spec_sm_clock_hz(int compute_capability, int sm_count);
// Dense FLOP per clock per SM (an FMA counts 2) for "bf16", "fp16", "tf32", "fp32" (CUDA cores), "fp8";
// 0 when the architecture (sm_80, sm_89, sm_90) or dtype is unknown.
double flops_per_clock_per_sm(int compute_capability, const std::string& dtype);
std::vector<GemmShape> default_gemm_shapes();

}  // namespace plansim::hw
