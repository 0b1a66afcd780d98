// GPU-free logic of the hw benches: sizes, sweeps, nccl-tests counts and busbw factors, GEMM shapes.
#include <catch2/catch.hpp>

#include "hw/bench_spec.hpp"

using namespace plansim::hw;

TEST_CASE("sizes take K/M/G suffixes as powers of 1024, like nccl-tests", "[hw]") {
  CHECK(parse_size("8") == 8);
  CHECK(parse_size("1K") == 1024);
  CHECK(parse_size("128M") == 128u * 1024 * 1024);
  CHECK(parse_size("2G") == 2ull * 1024 * 1024 * 1024);
  CHECK(parse_size("3k") == 3072);
  CHECK_THROWS_AS(parse_size(""), std::invalid_argument);
  CHECK_THROWS_AS(parse_size("1X"), std::invalid_argument);
  CHECK_THROWS_AS(parse_size("M"), std::invalid_argument);
  CHECK_THROWS_AS(parse_size("-1K"), std::invalid_argument);
}

TEST_CASE("the size sweep multiplies by the factor and includes both ends when they are on the grid", "[hw]") {
  CHECK(size_sweep(8, 128, 2) == std::vector<std::size_t>{8, 16, 32, 64, 128});
  CHECK(size_sweep(1024, 5000, 4) == std::vector<std::size_t>{1024, 4096});
  CHECK(size_sweep(64, 64, 1) == std::vector<std::size_t>{64});
  CHECK_THROWS_AS(size_sweep(0, 8, 2), std::invalid_argument);
  CHECK_THROWS_AS(size_sweep(16, 8, 2), std::invalid_argument);
  CHECK_THROWS_AS(size_sweep(8, 16, 1), std::invalid_argument);
}

TEST_CASE("busbw factors are nccl-tests' for every collective", "[hw]") {
  // n = 8: all-reduce moves 2(n-1)/n = 1.75 of the buffer per rank; gather/scatter/all-to-all (n-1)/n = 0.875.
  CHECK(busbw_factor(NcclOp::kAllReduce, 8) == Approx(1.75));
  CHECK(busbw_factor(NcclOp::kAllGather, 8) == Approx(0.875));
  CHECK(busbw_factor(NcclOp::kReduceScatter, 8) == Approx(0.875));
  CHECK(busbw_factor(NcclOp::kAllToAll, 8) == Approx(0.875));
  CHECK(busbw_factor(NcclOp::kBroadcast, 8) == 1.0);
  CHECK(busbw_factor(NcclOp::kReduce, 8) == 1.0);
  CHECK(busbw_factor(NcclOp::kSendRecv, 8) == 1.0);
  CHECK(busbw_factor(NcclOp::kAllReduce, 1) == 0.0);
  // 1 GiB all-reduce on 8 ranks in 10 ms: algbw 107.4 GB/s, busbw 187.9 GB/s.
  const Bandwidth bw = bandwidth(NcclOp::kAllReduce, 1u << 30, 0.010, 8);
  CHECK(bw.algbw == Approx(107.374e9).epsilon(1e-4));
  CHECK(bw.busbw == Approx(187.905e9).epsilon(1e-4));
}

TEST_CASE("op names round-trip and unknown names are rejected", "[hw]") {
  for (NcclOp op : all_nccl_ops()) CHECK(parse_op(op_name(op)) == op);
  CHECK_FALSE(parse_op("allreduce"));
  CHECK(all_nccl_ops().size() == 7);
}

TEST_CASE("element counts follow nccl-tests: the size is the whole buffer, split ops round down to n", "[hw]") {
  // 1000 B of floats = 250 elements; 8 ranks -> 31 per rank, 248 in total.
  const OpCounts ag = op_counts(NcclOp::kAllGather, 1000, 4, 8);
  CHECK(ag.total == 248);
  CHECK(ag.send_count == 31);
  CHECK(ag.recv_count == 248);
  const OpCounts rs = op_counts(NcclOp::kReduceScatter, 1000, 4, 8);
  CHECK(rs.send_count == 248);
  CHECK(rs.recv_count == 31);
  const OpCounts a2a = op_counts(NcclOp::kAllToAll, 1000, 4, 8);
  CHECK(a2a.send_count == 248);
  CHECK(a2a.recv_count == 248);
  const OpCounts ar = op_counts(NcclOp::kAllReduce, 1000, 4, 8);
  CHECK(ar.total == 250);
  CHECK(ar.send_count == 250);
  CHECK(op_counts(NcclOp::kAllGather, 16, 4, 8).total == 0);  // below one element per rank
  CHECK(has_in_place(NcclOp::kAllReduce));
  CHECK_FALSE(has_in_place(NcclOp::kAllToAll));
  CHECK_FALSE(has_in_place(NcclOp::kSendRecv));
}

TEST_CASE("GEMM shapes parse as MxNxK lists; the default list covers transformer projections", "[hw]") {
  const auto shapes = parse_shapes("8192x4096x4096,1x2x3");
  REQUIRE(shapes.size() == 2);
  CHECK(shapes[0].m == 8192);
  CHECK(shapes[1].k == 3);
  CHECK(shapes[0].flops() == Approx(2.0 * 8192 * 4096 * 4096));
  CHECK_THROWS_AS(parse_shapes("1x2"), std::invalid_argument);
  CHECK_THROWS_AS(parse_shapes("1x2x3x4"), std::invalid_argument);
  CHECK_THROWS_AS(parse_shapes("0x2x3"), std::invalid_argument);
  CHECK_THROWS_AS(parse_shapes("ax2x3"), std::invalid_argument);
  CHECK_THROWS_AS(parse_shapes(""), std::invalid_argument);
  const auto defaults = default_gemm_shapes();
  CHECK(defaults.size() >= 16);
  for (const GemmShape& s : defaults) CHECK(s.flops() > 0);
}
