// Bench JSON rows and the nccl-tests table layout.
#include <catch2/catch.hpp>

#include "hw/bench_output.hpp"
#include "sim/calib/calibrate.hpp"
#include "sim/io/bench_reader.hpp"

using namespace plansim::hw;

TEST_CASE("nccl rows carry the fields plansim calibrate reads", "[hw]") {
  const OpCounts c = op_counts(NcclOp::kAllGather, 1 << 20, 4, 8);
  NcclTiming t;
  t.seconds = 50e-6;
  t.bw = bandwidth(NcclOp::kAllGather, 1 << 20, t.seconds, 8);
  const nlohmann::json row = nccl_row(NcclOp::kAllGather, 1 << 20, c, 8, false, t);
  CHECK(row["op"] == "all_gather");
  CHECK(row["size_bytes"] == (1 << 20));
  CHECK(row["nranks"] == 8);
  CHECK(row["placement"] == "out_of_place");
  CHECK(row["time_s"].get<double>() == Approx(50e-6));
  CHECK(row["busbw_Bps"].get<double>() == Approx((1 << 20) / 50e-6 * 7.0 / 8.0));
  CHECK(row["wrong"] == 0);
  const nlohmann::json doc = make_bench_document("nccl", {{"name", "test"}}, {{"op", "all_gather"}});
  CHECK(doc["bench"] == "nccl");
  CHECK(doc["schema_version"] == kBenchSchemaVersion);
  CHECK(doc["rows"].is_array());
}

TEST_CASE("the nccl table has nccl-tests' columns, in-place N/A for out-of-place-only ops", "[hw]") {
  const std::string header = nccl_table_header();
  CHECK(header.find("out-of-place") != std::string::npos);
  CHECK(header.find("algbw") != std::string::npos);
  CHECK(header.find("#wrong") != std::string::npos);
  const OpCounts c = op_counts(NcclOp::kAllReduce, 1024, 4, 2);
  NcclTiming t;
  t.seconds = 10e-6;
  t.bw = bandwidth(NcclOp::kAllReduce, 1024, t.seconds, 2);
  const std::string line = nccl_table_line(NcclOp::kAllReduce, 1024, c, t, &t);
  // size, count, type, redop, root, then time (us), algbw, busbw (GB/s), #wrong twice.
  CHECK(line == "        1024           256     float     sum      -1    10.00    0.10    0.10       0"
                "    10.00    0.10    0.10       0\n");
  // The header's columns line up with the data: the first "#wrong" ends where the first count does.
  CHECK(header.find(" \n") == std::string::npos);
  const std::string names = header.substr(header.find("\n#       size") + 1);
  const std::string out_of_place = "        1024           256     float     sum      -1    10.00    0.10    0.10       0";
  CHECK(names.find("#wrong") + 6 == out_of_place.size());
  CHECK(line.rfind(out_of_place, 0) == 0);
  const OpCounts a = op_counts(NcclOp::kAllToAll, 1024, 4, 2);
  const std::string a2a = nccl_table_line(NcclOp::kAllToAll, 1024, a, t, nullptr);
  CHECK(a2a.find("N/A") != std::string::npos);
  CHECK(a2a.find("none") != std::string::npos);
}

TEST_CASE("bench JSON with the environment record still reads in plansim calibrate's reader", "[hw]") {
  nlohmann::json doc = make_bench_document("hbm", {{"name", "test"}}, {{"iters", 20}});
  doc["rows"].push_back({{"size_bytes", 1 << 20}, {"time_s", 1e-6}, {"bytes_moved", 2 << 20}, {"bandwidth_Bps", 2e12},
                         {"wrong", 0}});
  doc["environment"] = {{"tool", "plansim-hw 0.1.0"},
                        {"versions", {{"nccl", 22809}}},
                        {"variables", {{"CUDA_DEVICE_MAX_CONNECTIONS", "32"}}},
                        {"processes", nlohmann::json::array({{{"host", "node01"}}})}};
  plansim::calib::Measurements m;
  CHECK_NOTHROW(plansim::io::read_bench_text(doc.dump(2), "hbm.json", m));
  CHECK(m.hbm.size() == 1);
}
