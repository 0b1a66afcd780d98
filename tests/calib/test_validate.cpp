// validate(): per-class median and max |relative error|, end-to-end error, matching and the tolerance verdict.
#include <catch2/catch.hpp>

#include "sim/calib/validate.hpp"
#include "sim/core/error.hpp"
#include "sim/io/report_timings_reader.hpp"

using namespace plansim;
using namespace plansim::calib;

namespace {

ReportTimings report(double iter, std::vector<OpTiming> ops) {
  ReportTimings r;
  r.source = "x.json";
  r.iteration_time_s = iter;
  r.ops = std::move(ops);
  return r;
}

}  // namespace

TEST_CASE("per-class median and max of |rel err|, signed end-to-end error", "[calib]") {
  // gemm errors: +10 %, -5 %, +20 % -> median 10 %, max 20 %. collective: -50 % -> 50 %.
  const ReportTimings measured = report(1.0, {{"qkv", "gemm", 0, 1.0, {}},
                                              {"mlp", "gemm", 0, 2.0, {}},
                                              {"out", "gemm", 1, 4.0, {}},
                                              {"ar", "collective", 0, 1.0, {}}});
  const ReportTimings sim = report(1.08, {{"qkv", "gemm", 0, 1.1, {}},
                                          {"mlp", "gemm", 0, 1.9, {}},
                                          {"out", "gemm", 1, 4.8, {}},
                                          {"ar", "collective", 0, 0.5, {}}});
  const Validation v = validate(sim, measured, 0.10);
  CHECK(v.end_to_end_rel == Approx(0.08));
  REQUIRE(v.classes.size() == 2);
  CHECK(v.classes.at("gemm").ops == 3);
  CHECK(v.classes.at("gemm").median_abs_rel == Approx(0.10));
  CHECK(v.classes.at("gemm").max_abs_rel == Approx(0.20));
  CHECK(v.classes.at("gemm").sim_total_s == Approx(7.8));
  CHECK(v.classes.at("collective").median_abs_rel == Approx(0.50));
  CHECK_FALSE(v.within_tolerance);  // collective median 50 % > 10 %
  CHECK(validate(sim, measured, 0.5).within_tolerance);
  CHECK_FALSE(validate(sim, measured, 0.07).within_tolerance);  // end to end 8 % > 7 % (and medians)
  const std::string text = format_validation(v);
  CHECK(text.find("EXCEEDED") != std::string::npos);
  CHECK(text.find("+8.00") != std::string::npos);
}

TEST_CASE("repeated op names match by order; extra ops are counted, not compared", "[calib]") {
  const ReportTimings measured = report(2.0, {{"layer", "gemm", 0, 1.0, {}}, {"layer", "gemm", 0, 3.0, {}},
                                              {"only_hw", "elementwise", 0, 1.0, {}}});
  const ReportTimings sim = report(2.0, {{"layer", "gemm", 0, 1.0, {}}, {"layer", "gemm", 0, 3.3, {}},
                                         {"only_sim", "p2p", 3, 1.0, {}}});
  const Validation v = validate(sim, measured, 0.2);
  CHECK(v.classes.at("gemm").median_abs_rel == Approx(0.05));  // 0 % and 10 %
  CHECK(v.classes.at("gemm").max_abs_rel == Approx(0.10));
  CHECK(v.unmatched_sim == 1);
  CHECK(v.unmatched_measured == 1);
  CHECK(v.within_tolerance);
}

TEST_CASE("a class mismatch between the files is an input error at the measured op", "[calib]") {
  const ReportTimings measured = report(1.0, {{"x", "gemm", 0, 1.0, SourcePos{"hw.json", 4, 5}}});
  const ReportTimings sim = report(1.0, {{"x", "attention", 0, 1.0, {}}});
  CHECK_THROWS_WITH(validate(sim, measured, 0.1), Catch::StartsWith("hw.json:4:5"));
}

TEST_CASE("report timings are read with file:line:col errors", "[calib]") {
  const ReportTimings r = io::read_report_timings_text(
      "{\"iteration_time_s\": 1.5, \"tokens_per_s\": 3,\n \"ops\": [{\"name\": \"a\", \"class\": \"p2p\", \"rank\": 2, "
      "\"duration_s\": 0.25}]}",
      "r.json");
  CHECK(r.iteration_time_s == 1.5);
  REQUIRE(r.ops.size() == 1);
  CHECK(r.ops[0].rank == 2);
  CHECK(r.ops[0].pos.line == 2);
  CHECK_THROWS_WITH(io::read_report_timings_text("{\"iteration_time_s\": 1,\n \"ops\": [{\"name\": \"a\", \"class\": "
                                                 "\"matmul\", \"rank\": 0, \"duration_s\": 1}]}",
                                                 "r.json"),
                    Catch::StartsWith("r.json:2:") && Catch::Contains("gemm"));
  CHECK_THROWS_WITH(io::read_report_timings_text("{\"ops\": []}", "r.json"),
                    Catch::StartsWith("r.json") && Catch::Contains("iteration_time_s"));
}

TEST_CASE("a folded simulation stands for its other ranks through ranks[].executed_as", "[calib]") {
  // Ranks 1 and 3 were folded onto 0 and 2 (exact symmetry): every measured rank is compared with the rank
  // that stands for it, so nothing is unmatched and each measured op is one sample.
  ReportTimings sim = report(1.0, {{"mlp", "gemm", 0, 1.0, {}}, {"ar", "collective", 2, 2.0, {}}});
  sim.executed_as = {{0, 0}, {1, 0}, {2, 2}, {3, 2}};
  const ReportTimings measured = report(1.0, {{"mlp", "gemm", 0, 1.0, {}},
                                              {"mlp", "gemm", 1, 0.8, {}},
                                              {"ar", "collective", 2, 2.0, {}},
                                              {"ar", "collective", 3, 4.0, {}}});
  const Validation v = validate(sim, measured, 0.5);
  CHECK(v.unmatched_sim == 0);
  CHECK(v.unmatched_measured == 0);
  CHECK(v.classes.at("gemm").ops == 2);
  CHECK(v.classes.at("gemm").max_abs_rel == Approx(0.25));  // rank 1: (1.0 - 0.8) / 0.8
  CHECK(v.classes.at("gemm").sim_total_s == Approx(2.0));  // rank 0's op, counted for ranks 0 and 1
  CHECK(v.classes.at("collective").max_abs_rel == Approx(0.5));
  // Without the mapping, the measured ranks 1 and 3 have no simulated counterpart.
  sim.executed_as.clear();
  const Validation plain = validate(sim, measured, 0.5);
  CHECK(plain.unmatched_measured == 2);
  CHECK(plain.unmatched_sim == 0);
}

TEST_CASE("report timings read ranks[].executed_as of a folded report, refusing a rank listed twice", "[calib]") {
  const std::string head = "{\"iteration_time_s\": 1, \"ops\": [{\"name\": \"a\", \"class\": \"gemm\", \"rank\": 0, "
                           "\"duration_s\": 1}],\n \"ranks\": [";
  const ReportTimings r = io::read_report_timings_text(
      head + "{\"rank\": 0, \"executed_as\": 0, \"stage\": 0}, {\"rank\": 1, \"executed_as\": 0}, {\"rank\": 2}]}",
      "r.json");
  CHECK(r.executed_as == std::map<int, int>{{0, 0}, {1, 0}});
  CHECK_THROWS_WITH(io::read_report_timings_text(head + "{\"rank\": 1, \"executed_as\": 0},\n {\"rank\": 1, "
                                                        "\"executed_as\": 0}]}",
                                                 "r.json"),
                    Catch::StartsWith("r.json:3:") && Catch::Contains("twice"));
  CHECK_THROWS_WITH(io::read_report_timings_text(head + "{\"rank\": 1, \"executed_as\": -1}]}", "r.json"),
                    Catch::StartsWith("r.json:2:"));
}
