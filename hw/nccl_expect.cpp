#include "hw/nccl_expect.hpp"

#include "hw/pattern.hpp"

namespace plansim::hw {
namespace {

auto u(int v) { return static_cast<std::uint64_t>(v); }

float sum_over_ranks(int nranks, std::size_t index) {
  float s = 0;
  for (int r = 0; r < nranks; ++r) s += pattern_value(u(r), index);
  return s;
}

}  // namespace

float send_value(NcclOp, int rank, std::size_t index) { return pattern_value(u(rank), index); }

std::optional<float> expected_value(NcclOp op, int rank, int nranks, const OpCounts& counts, std::size_t index) {
  const auto n = static_cast<std::size_t>(nranks);
  switch (op) {
    case NcclOp::kAllReduce: return sum_over_ranks(nranks, index);
    case NcclOp::kAllGather: {
      // Chunk j of the output is rank j's input.
      const std::size_t per = counts.recv_count / n;
      return pattern_value(index / per, index % per);
    }
    case NcclOp::kReduceScatter:
      // Rank r keeps the sum of chunk r of every rank's input.
      return sum_over_ranks(nranks, static_cast<std::size_t>(rank) * counts.recv_count + index);
    case NcclOp::kBroadcast: return pattern_value(u(kRoot), index);
    case NcclOp::kReduce:
      if (rank != kRoot) return std::nullopt;
      return sum_over_ranks(nranks, index);
    case NcclOp::kAllToAll: {
      // Chunk j of rank r's output is chunk r of rank j's input.
      const std::size_t per = counts.recv_count / n;
      const std::size_t j = index / per;
      return pattern_value(j, static_cast<std::size_t>(rank) * per + index % per);
    }
    case NcclOp::kSendRecv:
      // A ring: every rank sends to rank+1 and receives from rank-1.
      return pattern_value(u((rank - 1 + nranks) % nranks), index);
  }
  return std::nullopt;
}

std::size_t in_place_offset(NcclOp op, int rank, const OpCounts& counts) {
  const auto r = static_cast<std::size_t>(rank);
  if (op == NcclOp::kAllGather) return r * counts.send_count;
  if (op == NcclOp::kReduceScatter) return r * counts.recv_count;
  return 0;
}

CheckResult check_received(NcclOp op, int rank, int nranks, const OpCounts& counts, std::span<const float> received) {
  // pattern_value depends on the index only modulo 61, so the per-element sum over ranks is a 61-entry
  // table; this keeps the check O(elements) instead of O(elements x ranks) for the reducing ops.
  const bool reduces = op == NcclOp::kAllReduce || op == NcclOp::kReduceScatter || op == NcclOp::kReduce;
  float sums[61] = {};
  if (reduces)
    for (std::size_t m = 0; m < 61; ++m) sums[m] = sum_over_ranks(nranks, m);
  const std::size_t offset = op == NcclOp::kReduceScatter ? static_cast<std::size_t>(rank) * counts.recv_count : 0;
  CheckResult result;
  for (std::size_t i = 0; i < received.size(); ++i) {
    std::optional<float> want;
    if (reduces && (op != NcclOp::kReduce || rank == kRoot))
      want = sums[(offset + i) % 61];
    else if (!reduces)
      want = expected_value(op, rank, nranks, counts, i);
    if (want && *want != received[i]) {
      if (result.wrong == 0) result.first_wrong = i;
      ++result.wrong;
    }
  }
  return result;
}

}  // namespace plansim::hw
