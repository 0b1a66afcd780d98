// The correctness check of bench nccl, tested against a host reference executor of every collective:
// the check must accept the reference result on every rank and reject a result with one wrong element.
#include <catch2/catch.hpp>

#include <vector>

#include "hw/nccl_expect.hpp"
#include "hw/pattern.hpp"

using namespace plansim::hw;

namespace {

using Buffers = std::vector<std::vector<float>>;

// Rank r's send buffer, as the fill kernel writes it.
std::vector<float> input(NcclOp op, int r, std::size_t count) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = send_value(op, r, i);
  return v;
}

// Straightforward reference semantics of each collective (NCCL's documentation), independent of expected_value.
Buffers reference(NcclOp op, int n, const OpCounts& c) {
  const auto un = static_cast<std::size_t>(n);
  Buffers in(un), out(un, std::vector<float>(c.recv_count, -1.0f));
  for (int r = 0; r < n; ++r) in[static_cast<std::size_t>(r)] = input(op, r, c.send_count);
  for (std::size_t r = 0; r < un; ++r) {
    for (std::size_t i = 0; i < c.recv_count; ++i) {
      switch (op) {
        case NcclOp::kAllReduce:
        case NcclOp::kReduce: {
          if (op == NcclOp::kReduce && r != static_cast<std::size_t>(kRoot)) break;
          float s = 0;
          for (std::size_t q = 0; q < un; ++q) s += in[q][i];
          out[r][i] = s;
          break;
        }
        case NcclOp::kAllGather: out[r][i] = in[i / c.send_count][i % c.send_count]; break;
        case NcclOp::kReduceScatter: {
          float s = 0;
          for (std::size_t q = 0; q < un; ++q) s += in[q][r * c.recv_count + i];
          out[r][i] = s;
          break;
        }
        case NcclOp::kBroadcast: out[r][i] = in[kRoot][i]; break;
        case NcclOp::kAllToAll: {
          const std::size_t per = c.recv_count / un, from = i / per;
          out[r][i] = in[from][r * per + i % per];
          break;
        }
        case NcclOp::kSendRecv: out[r][i] = in[(r + un - 1) % un][i]; break;
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("the host check accepts every collective's reference result and catches one wrong element", "[hw]") {
  for (NcclOp op : all_nccl_ops()) {
    for (int n : {1, 2, 3, 8}) {
      for (std::size_t bytes : {std::size_t{4}, std::size_t{100}, std::size_t{4096}, std::size_t{1000}}) {
        const OpCounts c = op_counts(op, bytes, sizeof(float), n);
        if (c.total == 0) continue;
        CAPTURE(op_name(op), n, bytes);
        Buffers out = reference(op, n, c);
        for (int r = 0; r < n; ++r) CHECK(check_received(op, r, n, c, out[static_cast<std::size_t>(r)]).wrong == 0);
        // Corrupt the last element of the last rank that has a defined result.
        const int victim = op == NcclOp::kReduce ? kRoot : n - 1;
        auto& buf = out[static_cast<std::size_t>(victim)];
        buf.back() += 1.0f;
        const CheckResult bad = check_received(op, victim, n, c, buf);
        CHECK(bad.wrong == 1);
        CHECK(bad.first_wrong == buf.size() - 1);
      }
    }
  }
}

TEST_CASE("reduce leaves non-root ranks unchecked; in-place offsets follow NCCL's layout", "[hw]") {
  const OpCounts c = op_counts(NcclOp::kReduce, 64, 4, 4);
  std::vector<float> garbage(c.recv_count, 12345.0f);
  CHECK(check_received(NcclOp::kReduce, 1, 4, c, garbage).wrong == 0);
  CHECK(check_received(NcclOp::kReduce, kRoot, 4, c, garbage).wrong == c.recv_count);
  const OpCounts ag = op_counts(NcclOp::kAllGather, 64, 4, 4);  // 16 elements, 4 per rank
  CHECK(in_place_offset(NcclOp::kAllGather, 2, ag) == 8);
  const OpCounts rs = op_counts(NcclOp::kReduceScatter, 64, 4, 4);
  CHECK(in_place_offset(NcclOp::kReduceScatter, 3, rs) == 12);
  CHECK(in_place_offset(NcclOp::kAllReduce, 3, rs) == 0);
}

TEST_CASE("fill patterns are small exact integers", "[hw]") {
  for (std::uint64_t r = 0; r < 70; ++r)
    for (std::uint64_t i = 0; i < 200; ++i) {
      const float v = pattern_value(r, i);
      CHECK((v >= 0 && v <= 60 && v == static_cast<float>(static_cast<int>(v))));
      const float g = gemm_operand(r, i);
      CHECK((g == -1.0f || g == 0.0f || g == 1.0f));
    }
}
