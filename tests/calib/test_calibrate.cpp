// calibrate(): grouping, the GEMM saturating efficiency curve, HBM, the YAML profile, and bench JSON input
// errors with file:line:col.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <random>

#include "sim/calib/calibrate.hpp"
#include "sim/core/error.hpp"
#include "sim/io/bench_reader.hpp"
#include "sim/io/profile_yaml.hpp"
#include "sim/io/unit_parse.hpp"

using namespace plansim;
using namespace plansim::calib;

namespace {

// A bench nccl JSON document for t(S) = α + S·f/B with 2 % noise (f = nccl-tests factor for op and n).
std::string nccl_json(const std::string& op, int n, double factor, double alpha, double bw, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.02);
  std::string rows;
  for (double s = 1024; s <= 4.0 * (1u << 30); s *= 2) {
    const double t = (alpha + s * factor / bw) * (1.0 + noise(rng));
    rows += fmt::format("{}{{\"op\": \"{}\", \"size_bytes\": {}, \"nranks\": {}, \"placement\": \"out_of_place\", "
                        "\"time_s\": {:.9g}, \"wrong\": 0}}",
                        rows.empty() ? "" : ",\n    ", op, s, n, t);
  }
  return fmt::format("{{\"bench\": \"nccl\", \"schema_version\": 1, \"tool\": \"test\",\n"
                     " \"device\": {{\"name\": \"Test GPU\"}}, \"config\": {{\"op\": \"{}\"}},\n"
                     " \"rows\": [\n    {}]}}\n",
                     op, rows);
}

}  // namespace

TEST_CASE("calibrate recovers α and bus bandwidth per op from bench nccl JSON", "[calib]") {
  Measurements m;
  // 8 ranks: all_reduce factor 1.75 (α 30 us, B 170 GB/s), all_gather factor 0.875 (α 12 us, B 160 GB/s).
  io::read_bench_text(nccl_json("all_reduce", 8, 1.75, 30e-6, 170e9, 1), "ar.json", m);
  io::read_bench_text(nccl_json("all_gather", 8, 0.875, 12e-6, 160e9, 2), "ag.json", m);
  const Profile p = calibrate(m);
  REQUIRE(p.collectives.size() == 2);
  CHECK(p.device == "Test GPU");
  const CollectiveFit& ag = p.collectives[0];  // sorted: all_gather < all_reduce
  const CollectiveFit& ar = p.collectives[1];
  CHECK(ag.op == "all_gather");
  CHECK(ar.op == "all_reduce");
  CHECK(ar.algorithm == "auto");
  CHECK(ar.nranks == 8);
  // Tolerance: with 2 % noise over 23 sizes, α within 10 % and B within 3 %.
  CHECK(ar.latency_s == Approx(30e-6).epsilon(0.10));
  CHECK(ar.bus_bandwidth_Bps == Approx(170e9).epsilon(0.03));
  CHECK(ag.latency_s == Approx(12e-6).epsilon(0.10));
  CHECK(ag.bus_bandwidth_Bps == Approx(160e9).epsilon(0.03));
}

TEST_CASE("calibrate fits the saturating GEMM efficiency curve and HBM bandwidth", "[calib]") {
  // eff(F) = 0.8·F/(F + 40 GFLOP) on a 989 TFLOP/s part: t(F) = (F + F_half) / (e_max · peak).
  const double peak = 989e12, e_max = 0.8, f_half = 40e9;
  Measurements m;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> noise(0.0, 0.02);
  for (double f = 1e9; f <= 1e14; f *= 2) {
    m.gemms.push_back({"bf16", f, (f + f_half) / (e_max * peak) * (1.0 + noise(rng)), peak, {}});
    m.hbm.push_back({f / 100, (2e-6 + f / 100 / 4.0e12) * (1.0 + noise(rng)), {}});
  }
  const Profile p = calibrate(m);
  REQUIRE(p.gemms.size() == 1);
  const GemmFit& g = p.gemms[0];
  CHECK(g.max_efficiency == Approx(e_max).epsilon(0.03));
  CHECK(g.half_saturation_flops == Approx(f_half).epsilon(0.15));
  CHECK(gemm_efficiency(g, f_half) == Approx(e_max / 2).epsilon(0.05));
  CHECK(gemm_efficiency(g, 1e15) == Approx(e_max).epsilon(0.03));
  REQUIRE(p.hbm.size() == 1);
  CHECK(p.hbm[0].bandwidth_Bps == Approx(4.0e12).epsilon(0.03));
  CHECK(p.hbm[0].latency_s == Approx(2e-6).epsilon(0.15));

  // The profile's unit strings parse back with io/ (the simulator reads them the same way).
  const std::string y = profile_yaml(p);
  CHECK(y.find("version: 1") != std::string::npos);
  const auto value = [&](const std::string& key) {
    const auto at = y.find(key + ": \"");
    REQUIRE(at != std::string::npos);
    const auto start = at + key.size() + 3;
    return y.substr(start, y.find('"', start) - start);
  };
  CHECK(io::parse_flop_rate(value("max_rate")).value() == Approx(g.max_rate_flops).epsilon(1e-5));
  CHECK(io::parse_flops(value("half_saturation")).value() == Approx(g.half_saturation_flops).epsilon(1e-5));
  CHECK(io::parse_rate(value("bandwidth")).value() == Approx(p.hbm[0].bandwidth_Bps).epsilon(1e-5));
  CHECK(io::parse_time(value("latency")).seconds() == Approx(p.hbm[0].latency_s).epsilon(1e-5));
}

TEST_CASE("bench JSON errors point at file:line:col", "[calib]") {
  Measurements m;
  const auto error_of = [&](const std::string& text) -> std::string {
    try {
      io::read_bench_text(text, "bad.json", m);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  // Syntax error on line 2: a list closed with '}'.
  CHECK_THAT(error_of("{\"bench\": \"nccl\",\n \"rows\": [1, 2}\n}"), Catch::StartsWith("bad.json:2:15:"));
  // Unknown bench kind, at its value.
  CHECK_THAT(error_of("{\"bench\": \"ncc\", \"schema_version\": 1, \"rows\": []}"),
             Catch::StartsWith("bad.json:1:11"));
  // A row with a negative time (line 3, column of the value).
  CHECK_THAT(error_of("{\"bench\": \"nccl\", \"schema_version\": 1,\n \"rows\": [\n"
                      "  {\"op\": \"all_reduce\", \"size_bytes\": 8, \"nranks\": 2, \"time_s\": -1}]}"),
             Catch::StartsWith("bad.json:3:") && Catch::Contains("time_s"));
  // A row that failed its correctness check.
  CHECK_THAT(error_of("{\"bench\": \"hbm\", \"schema_version\": 1, \"rows\": [\n"
                      "  {\"bytes_moved\": 8, \"time_s\": 1e-6, \"wrong\": 3}]}"),
             Catch::StartsWith("bad.json:2:") && Catch::Contains("correctness"));
  // Misspelt key gets a suggestion.
  CHECK_THAT(error_of("{\"bench\": \"hbm\", \"schema_version\": 1, \"rows\": [\n"
                      "  {\"bytes_moved\": 8, \"time_s\": 1e-6, \"bandwith_Bps\": 3}]}"),
             Catch::Contains("did you mean 'bandwidth_Bps'"));
}

TEST_CASE("a group with one size cannot be fitted and says where", "[calib]") {
  Measurements m;
  io::read_bench_text("{\"bench\": \"nccl\", \"schema_version\": 1, \"rows\": [\n"
                      "  {\"op\": \"broadcast\", \"size_bytes\": 8, \"nranks\": 2, \"time_s\": 1e-5}]}",
                      "one.json", m);
  CHECK_THROWS_WITH(calibrate(m), Catch::StartsWith("one.json:2:") && Catch::Contains("two different sizes"));
  Measurements empty;
  CHECK_THROWS_AS(calibrate(empty), ConfigError);
}

TEST_CASE("real nccl-tests data (2 x 8 H200 all_reduce) gives a plausible fit", "[calib]") {
  // tests/data/calibrate/datacrunch_h200_2node_all_reduce.json: nccl-tests output converted to the bench schema
  // (source in its "tool" field). Measured busbw reaches 268 GB/s at 1 GiB and 1 MiB takes 259 us. Real curves
  // are not exactly α + S·f/B (protocol switches, noisy mid sizes), so the check is on plausibility:
  // B between 200 and 320 GB/s, α between 100 and 600 us, 1 GiB predicted within 20 %.
  Measurements m;
  io::read_bench_file(std::string(PLANSIM_SOURCE_DIR) + "/tests/data/calibrate/datacrunch_h200_2node_all_reduce.json",
                      m);
  const Profile p = calibrate(m);
  REQUIRE(p.collectives.size() == 1);
  const CollectiveFit& f = p.collectives[0];
  CHECK(f.nranks == 16);
  CHECK(f.fit.points == 22);
  CHECK(f.bus_bandwidth_Bps > 200e9);
  CHECK(f.bus_bandwidth_Bps < 320e9);
  CHECK(f.latency_s > 100e-6);
  CHECK(f.latency_s < 600e-6);
  const double predicted_1g = f.latency_s + 1073741824.0 * 1.875 / f.bus_bandwidth_Bps;
  CHECK(predicted_1g == Approx(7518.6e-6).epsilon(0.20));
}

TEST_CASE("p2p, hbm and peak-less gemm rows are read into their groups", "[calib]") {
  Measurements m;
  io::read_bench_text(R"({"bench": "p2p", "schema_version": 1, "device": {"name": "G"}, "config": {}, "rows": [
    {"src": 0, "dst": 1, "peer_access": true, "size_bytes": 8, "time_s": 1e-05, "bandwidth_Bps": 8e5, "wrong": 0},
    {"src": 0, "dst": 1, "peer_access": true, "size_bytes": 1e9, "time_s": 0.01001, "bandwidth_Bps": 1e11, "wrong": 0}]})",
                      "p2p.json", m);
  io::read_bench_text(R"({"bench": "gemm", "schema_version": 1, "rows": [
    {"m": 1, "n": 1, "k": 1, "dtype": "fp8", "flops": 1e9, "time_s": 1.1e-05, "peak_flops": null},
    {"m": 1, "n": 1, "k": 1, "dtype": "fp8", "flops": 1e12, "time_s": 1.01e-3, "peak_flops": null}]})",
                      "gemm.json", m);
  REQUIRE(m.collectives.size() == 2);
  CHECK(m.collectives[0].op == "p2p_copy");
  CHECK(m.collectives[0].algorithm == "0->1");
  CHECK(m.collectives[0].busbw_factor == 1.0);
  CHECK(m.device == "G");
  const Profile p = calibrate(m);
  REQUIRE(p.collectives.size() == 1);
  // Two exact points: t = 10 us + S / (100 GB/s).
  CHECK(p.collectives[0].latency_s == Approx(10e-6).epsilon(1e-3));
  CHECK(p.collectives[0].bus_bandwidth_Bps == Approx(1e11).epsilon(1e-3));
  REQUIRE(p.gemms.size() == 1);
  CHECK(p.gemms[0].peak_flops == 0);
  CHECK(p.gemms[0].max_rate_flops == Approx(1e15).epsilon(1e-3));
  const std::string y = profile_yaml(p);
  CHECK(y.find("    max_efficiency:") == std::string::npos);
  CHECK(y.find("    peak:") == std::string::npos);
  CHECK(y.find("max_rate: \"1000 TFLOP/s\"") != std::string::npos);
}

TEST_CASE("a bench profile is a calibration profile the simulator reads back", "[calib][profile]") {
  Measurements m;
  m.device = "Test GPU";
  m.sources = {"gemm.json"};
  for (double f : {1e9, 1e10, 1e11, 1e12, 1e13})
    m.gemms.push_back({"bf16", f, 5e-6 + f / 700e12, 989e12, {"gemm.json", 1, 1}});
  const std::string y = profile_yaml(calibrate(m), {"H100-SXM"});
  const CalibrationProfile p = io::parse_profile(y, "bench.yaml");
  CHECK(p.applies_to_gpu("H100-SXM-80GB"));
  REQUIRE(p.compute.matmul_tflops);
  CHECK(*p.compute.matmul_tflops == Approx(700).epsilon(1e-3));
  CHECK(p.source == "plansim-hw bench on Test GPU");
}
