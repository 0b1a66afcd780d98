#pragma once
// What each rank's receive buffer must hold after a collective when every rank's send buffer was filled
// with pattern_value(rank, index) (see pattern.hpp). Used by `bench nccl` to check every result on the host.
#include <cstddef>
#include <optional>
#include <span>

#include "hw/bench_spec.hpp"

namespace plansim::hw {

inline constexpr int kRoot = 0;  // root of broadcast and reduce

// The element rank `rank` sends at position `index` of its send buffer.
float send_value(NcclOp op, int rank, std::size_t index);

// The expected value at `index` of `rank`'s receive buffer; nullopt where the op leaves it undefined
// (reduce on a non-root rank). `counts` from op_counts().
std::optional<float> expected_value(NcclOp op, int rank, int nranks, const OpCounts& counts, std::size_t index);

// Where the result lives for the in-place form: an element offset into the send buffer (all_gather's input
// is rank*recv_count/nranks into the output; reduce_scatter's output is rank*recv_count into the input).
std::size_t in_place_offset(NcclOp op, int rank, const OpCounts& counts);

// Checks `received` (the recv buffer, recv_count elements) against expected_value; returns the number of
// wrong elements and the first wrong index.
struct CheckResult {
  std::size_t wrong = 0;
  std::size_t first_wrong = 0;
};
CheckResult check_received(NcclOp op, int rank, int nranks, const OpCounts& counts, std::span<const float> received);

}  // namespace plansim::hw
