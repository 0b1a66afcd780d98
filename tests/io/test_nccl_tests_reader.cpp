// The nccl-tests log reader (io/nccl_tests_reader.hpp): each layout in tests/data/nccl_tests/ (synthetic logs
// in the layouts nccl-tests prints; make_fixtures.py there), the errors with their exact file:line, the
// measurements it hands to `plansim calibrate`, and random line noise (never anything but a ConfigError).
#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

#include "sim/calib/calibrate.hpp"
#include "sim/calib/collective_residuals.hpp"
#include "sim/io/collective_calibration.hpp"
#include "sim/io/nccl_tests_ops.hpp"
#include "sim/io/nccl_tests_reader.hpp"
#include "tests/support/nccl_tests_fixtures.hpp"

using namespace plansim;

using namespace plansim::test_nccl;

TEST_CASE("nccl-tests: the ops, binaries and bus-bandwidth factors", "[io][nccl_tests]") {
  CHECK(io::nccl_tests_op_from_name("./build/all_reduce_perf") == "all_reduce");
  CHECK(io::nccl_tests_op_from_name("all_gather_perf_mpi") == "all_gather");
  CHECK(io::nccl_tests_op_from_name("/opt/nccl-tests/build/alltoall_perf") == "all_to_all");
  CHECK(io::nccl_tests_op_from_name("sendrecv_perf") == "send_recv");
  CHECK(io::nccl_tests_op_from_name("reduce_scatter") == "reduce_scatter");
  CHECK(!io::nccl_tests_op_from_name("gather_perf"));
  CHECK(!io::nccl_tests_op_from_name("hypercube_perf"));
  CHECK(io::nccl_tests_busbw_factor("all_reduce", 8) == Approx(1.75));
  CHECK(io::nccl_tests_busbw_factor("all_gather", 16) == Approx(15.0 / 16));
  CHECK(io::nccl_tests_busbw_factor("broadcast", 8) == 1.0);
  CHECK(io::nccl_tests_busbw_factor("all_reduce", 1) == 0.0);
}

TEST_CASE("nccl-tests: one node, the current layout", "[io][nccl_tests]") {
  const auto runs = io::load_nccl_tests(data("single_node_allreduce.log"));
  REQUIRE(runs.size() == 1);
  const auto& r = runs.front();
  CHECK(r.format == "text");
  CHECK(r.op == "all_reduce");
  CHECK(r.op_source == "its 'Collective test starting' line");
  CHECK(r.program == "all_reduce_perf");
  CHECK(r.nccl_version == "2.27.3");  // nccl-library=22703
  CHECK(r.pos.line == 3);
  CHECK(r.nthreads == 1);
  CHECK(r.ngpus == 8);
  CHECK(r.nranks == 8);
  CHECK(r.nodes() == 1);
  CHECK(r.hosts == std::vector<std::string>{"dgx-h100-01"});
  CHECK(r.gpu_model == "NVIDIA H100 80GB HBM3");
  CHECK(r.devices.at(5).device == 5);
  CHECK(r.algorithm == "auto");
  REQUIRE(r.rows.size() == 28);  // 8 B .. 1 GiB
  const auto& first = r.rows.front();
  CHECK(first.size_bytes == 8);
  CHECK(first.count == 2);
  CHECK(first.type == "float");
  CHECK(first.redop == "sum");
  CHECK(first.root == -1);
  CHECK(first.root_printed);
  CHECK(first.out_of_place.time_us == Approx(22.00));
  CHECK(first.in_place.time_us == Approx(22.88));
  CHECK(first.out_of_place.wrong == 0.0);
  CHECK(first.pos.line == 18);
  const auto& last = r.rows.back();
  CHECK(last.size_bytes == 1073741824.0);
  CHECK(last.out_of_place.time_us == Approx(5389.46));
  CHECK(last.out_of_place.busbw_GBps == Approx(348.65));
  CHECK(r.out_of_bounds == 0);
  REQUIRE(r.avg_busbw_GBps);
  CHECK(*r.avg_busbw_GBps > 100);
}

TEST_CASE("nccl-tests: mpirun --tag-output over two nodes, NCCL INFO and WARN lines interleaved", "[io][nccl_tests]") {
  const auto runs = io::load_nccl_tests(data("mpirun_2node_allgather.log"));
  REQUIRE(runs.size() == 1);
  const auto& r = runs.front();
  CHECK(r.op == "all_gather");
  CHECK(r.nranks == 16);
  CHECK(r.nodes() == 2);
  CHECK(r.hosts == std::vector<std::string>{"node-a", "node-b"});
  CHECK(r.devices.at(9).host == "node-b");
  CHECK(r.algorithm == "ring");  // "NCCL INFO NCCL_ALGO set by environment to Ring"
  CHECK(r.rows.size() == 19);    // 1 KiB .. 256 MiB; the INFO/WARN lines and the launcher's rule are skipped
  CHECK(r.rows.front().pos.line == 47);
  CHECK(r.rows.front().pos.column == 23);  // counted in the file's line, "[1,0]<stdout>:" included
}

TEST_CASE("nccl-tests: srun --label over two nodes, the binary named by the shell trace", "[io][nccl_tests]") {
  const auto runs = io::load_nccl_tests(data("srun_2node_allreduce.log"));
  REQUIRE(runs.size() == 1);
  const auto& r = runs.front();
  CHECK(r.op == "all_reduce");
  CHECK(r.op_source == "the command at line 1");  // untagged, before the tagged header
  CHECK(r.program == "/opt/nccl-tests/build/all_reduce_perf");
  CHECK(r.nranks == 8);
  CHECK(r.nodes() == 2);
  CHECK(r.gpu_model == "NVIDIA A100-SXM4-80GB");
  CHECK(r.nccl_version.empty());
  CHECK(r.rows.size() == 25);  // 8 B .. 128 MiB
  CHECK(r.out_of_bounds == 0);  // the log ends without "Collective test concluded": still read
  CHECK(r.avg_busbw_GBps);
}

TEST_CASE("nccl-tests: an older 2.x layout (no root column, an error column, no Group) tells its op by busbw/algbw",
          "[io][nccl_tests]") {
  const auto runs = io::load_nccl_tests(data("old_v2_allreduce.log"));
  REQUIRE(runs.size() == 1);
  const auto& r = runs.front();
  CHECK(r.op == "all_reduce");  // 2(n-1)/n = 1.5 over 4 ranks, redop sum
  CHECK(r.op_source.find("busbw/algbw = 1.500 over 4 ranks") == 0);
  CHECK(r.nranks == 4);
  CHECK(r.gpu_model == "Tesla V100-SXM2-32GB");
  REQUIRE(r.rows.size() == 17);
  CHECK(!r.rows.front().root_printed);
  CHECK(!r.rows.front().out_of_place.wrong);  // no #wrong column ...
  CHECK(r.rows.front().out_of_place.max_error == 0.0);  // ... but the old largest deviation
  calib::Measurements m;
  io::append_measurements(runs, m);
  CHECK(m.collectives.size() == 17);
}

TEST_CASE("nccl-tests: -J JSON", "[io][nccl_tests]") {
  const auto runs = io::load_nccl_tests(data("reduce_scatter.json"));
  REQUIRE(runs.size() == 1);
  const auto& r = runs.front();
  CHECK(r.format == "json");
  CHECK(r.op == "reduce_scatter");
  CHECK(r.op_source == "its args[0]");
  CHECK(r.protocol == "Simple");  // env NCCL_PROTO=Simple
  CHECK(r.nccl_version == "2.27.3");
  CHECK(r.nranks == 8);
  CHECK(r.gpu_model == "NVIDIA H200");
  CHECK(r.hosts == std::vector<std::string>{"hgx-h200-07"});
  REQUIRE(r.rows.size() == 18);
  CHECK(r.rows.front().size_bytes == 0);
  CHECK(r.rows.at(1).root == -1);  // printed as the string "    -1"
  CHECK(r.rows.at(1).out_of_place.wrong == 0.0);
  CHECK(r.avg_busbw_GBps == Approx(180.25));
  calib::Measurements m;
  io::append_measurements(runs, m);
  CHECK(m.collectives.size() == 17);  // the size-0 row is not a measurement
  CHECK(m.collectives.front().busbw_factor == Approx(7.0 / 8));
  CHECK(m.device == "NVIDIA H200");
}

TEST_CASE("nccl-tests: #wrong, N/A and out-of-bounds values", "[io][nccl_tests]") {
  const auto wrong = io::load_nccl_tests(data("wrong_allreduce.log"));
  CHECK(wrong.front().rows.at(2).out_of_place.wrong == 1024.0);
  CHECK(wrong.front().out_of_bounds == 1);
  calib::Measurements m;
  try {
    io::append_measurements(wrong, m);
    FAIL("a row with #wrong != 0 was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == data("wrong_allreduce.log") +
                                       ":20:6: this row failed nccl-tests' correctness check (#wrong = 1024): a wrong "
                                       "result's time is not a measurement; rerun before calibrating");
  }
  const auto na = io::load_nccl_tests(data("broadcast_novalidation.log"));
  CHECK(na.front().op == "broadcast");
  CHECK(na.front().rows.front().root == 0);
  CHECK(!na.front().rows.front().out_of_place.wrong);  // N/A: validation off
  calib::Measurements ok;
  io::append_measurements(na, ok);
  CHECK(ok.collectives.size() == na.front().rows.size());
  // A run that only says "Out of bounds values : 2 FAILED" (an old layout, no #wrong column) is refused too.
  const std::string text = small_log("all_reduce_perf", "        1024   256  float  sum  -1  20.0  0.05  0.05  N/A  20.0  0.05  0.05  N/A\n"
                                                        "# Out of bounds values : 2 FAILED\n");
  calib::Measurements oob;
  CHECK_THROWS_WITH(io::append_measurements(io::parse_nccl_tests(text, "t.log"), oob),
                    Catch::Contains("t.log:9:26: 2 size(s) failed nccl-tests' correctness check"));
}

TEST_CASE("nccl-tests: truncated, garbage and failed logs are errors at their line", "[io][nccl_tests]") {
  CHECK_THROWS_WITH(io::load_nccl_tests(data("truncated_allreduce.log")),
                    data("truncated_allreduce.log") +
                        ":35: a result row of 6 values, but the table header (line 16) names 13: size count type redop "
                        "root time algbw busbw #wrong time algbw busbw #wrong (is the row cut short?)");
  CHECK_THROWS_WITH(io::load_nccl_tests(data("garbage_allreduce.log")),
                    data("garbage_allreduce.log") + ":23:63: algbw must be a number, got '1.2.301'");
  CHECK_THROWS_WITH(io::load_nccl_tests(data("failed_allreduce.log")),
                    data("failed_allreduce.log") +
                        ":3: this run has no result rows (the log ends, or the next run starts, before its table: did "
                        "the test fail?)");
  CHECK_THROWS_WITH(io::load_nccl_tests(data("no_such.log")), Catch::Contains("no such file"));
  CHECK(error_of("hello\nworld\n") == "t.log: no nccl-tests run in this file (no '# nThread ... nGpus ...' header)");
}

TEST_CASE("nccl-tests: what a log cannot tell is an error that says what to give", "[io][nccl_tests]") {
  const std::string ar = "        1024   256  float  sum  -1  20.0  1.00  1.00  0  20.0  1.00  1.00  0\n";
  // A device line before any header.
  CHECK(error_of("#  Rank  0 Group  0 Pid 1 on h device 0 [0x01] GPU\n") ==
        "t.log:1: a '#  Rank' device line before any '# nThread ... nGpus ...' header: is the start of the log missing?");
  CHECK(error_of(small_log("all_reduce_perf", "#  Rank  x on h\n" + ar)) ==
        "t.log:8:10: the rank must be an integer from 0 to 131,071, got 'x'");
  CHECK(error_of(small_log("all_reduce_perf", "#  Rank  1 Group  0 Pid 1 on h device 1 [0x01] GPU\n" + ar)) ==
        "t.log:8:10: rank 1 is listed twice (also at line 5)");
  // Two processes printing at once (nccl-tests built without MPI=1): the second header, untagged or tagged.
  const std::string header = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n";
  CHECK(error_of(header + header).find("t.log:2: a second '# nThread' header while the run of line 1 has printed no "
                                       "results") == 0);
  std::string tagged;
  for (const char* tag : {"[1,0]<stdout>:", "[1,1]<stdout>:"})
    for (const auto& line : {header, std::string("#  Rank  0 Group  0 Pid 1 on h device 0 [0x01] GPU\n"),
                             std::string("#  size count type redop root time algbw busbw #wrong\n"),
                             std::string("  1024 256 float sum -1 20.0 1.00 1.00 0\n")})
      tagged += tag + line;
  CHECK(error_of(tagged).find("t.log:5: a run printed by a second process (tag '1'; the first, tag '0', at line 1)") == 0);
  // No devices: the rank count must be given, and a given one must agree with the devices.
  const std::string no_devices = header + "#  size count type redop root time algbw busbw #wrong\n"
                                          "  1024 256 float sum -1 20.0 1.00 1.75 0\n";
  CHECK(error_of(no_devices).find("t.log:1: the log lists no '#  Rank N ... device N' lines") == 0);
  CHECK(error_of(no_devices, {"all_reduce", 8}).empty());
  CHECK(error_of(small_log("all_reduce_perf", ar), {"", 4}) == "--gpus: 4 GPUs given, but the run at t.log:2 lists 2 ranks");
  // The op: its name must be one plansim reads, and busbw/algbw must agree with it.
  CHECK(error_of(small_log("gather_perf", ar)).find("t.log:2: 'gather_perf' (its 'Collective test starting' line) is not "
                                                    "one of the nccl-tests plansim reads") == 0);
  CHECK(error_of(small_log("all_gather_perf", ar)) ==
        "t.log:8:9: busbw/algbw = 1.000, but all_gather over 2 ranks has nccl-tests' factor 0.500 (its 'Collective "
        "test starting' line says all_gather): is the rank count or the collective wrong?");
  CHECK(error_of(small_log("all_reduce_perf", ar), {"alltoall", 0}).find("t.log:8:9: busbw/algbw = 1.000, but all_to_all") ==
        0);
  // Without a name: all_gather and alltoall have the same factor and redop.
  const std::string ag = "        1024   256  float  none  -1  20.0  1.00  0.75  0  20.0  1.00  0.75  0\n";
  CHECK(error_of(small_log("", ag, 4)) ==
        "t.log:9:9: the log does not say which collective it ran, and busbw/algbw = 0.750 over 4 ranks with redop none "
        "fits all_gather and all_to_all: give --op");
  CHECK(io::parse_nccl_tests(small_log("", ag, 4), "t.log", {"all_to_all", 0}).front().op == "all_to_all");
  CHECK(io::parse_nccl_tests(small_log("", ag, 4), "alltoall_perf.out").front().op == "all_to_all");  // the file's name
  const std::string bc = "        1024   256  float  none   0  20.0  1.00  1.00  0  20.0  1.00  1.00  0\n";
  CHECK(io::parse_nccl_tests(small_log("", bc, 4), "t.log").front().op == "broadcast");
  const std::string sr = "        1024   256  float  none  -1  20.0  1.00  1.00  0  20.0  1.00  1.00  0\n";
  CHECK(io::parse_nccl_tests(small_log("", sr, 4), "t.log").front().op == "send_recv");
  const std::string rs = "        1024   256  float  sum  -1  20.0  1.00  0.75  0  20.0  1.00  0.75  0\n";
  CHECK(io::parse_nccl_tests(small_log("", rs, 4), "t.log").front().op == "reduce_scatter");
  // A table header that names no busbw, a row before the header of a second table, a bad footer.
  CHECK(error_of(small_log("all_reduce_perf", "#  size count type time algbw\n")) ==
        "t.log:8:4: the table header must name 'size', 'time', 'algbw' and 'busbw' columns");
  CHECK(error_of(small_log("all_reduce_perf", ar + "# Avg bus bandwidth : fast\n")) ==
        "t.log:9:23: the average bus bandwidth must be a number, got 'fast'");
  CHECK(error_of(small_log("all_reduce_perf", ar + "# Avg bus bandwidth : 1.0\n" + ar)) ==
        "t.log:10:9: a result row after the table's footer ('Avg bus bandwidth'); is a header missing?");
  CHECK(error_of(small_log("all_reduce_perf", ar + "# Avg bus bandwidth : 1.0\n0\n1 file(s) copied\n")).empty());
}

TEST_CASE("nccl-tests: format detection", "[io][nccl_tests]") {
  CHECK(io::looks_like_nccl_tests_file(data("single_node_allreduce.log")));
  CHECK(io::looks_like_nccl_tests_file(data("mpirun_2node_allgather.log")));
  CHECK(io::looks_like_nccl_tests_file(data("reduce_scatter.json")));
  CHECK(io::looks_like_nccl_tests_file(data("truncated_allreduce.log")));  // read, then refused with its line
  CHECK(!io::looks_like_nccl_tests_file(std::string(PLANSIM_SOURCE_DIR) + "/validate/nccl/stas00_mlengineering.yaml"));
  CHECK(!io::looks_like_nccl_tests_file(std::string(PLANSIM_SOURCE_DIR) + "/tests/data/calibrate/synthetic_all_reduce.json"));
  CHECK(!io::looks_like_nccl_tests_file(data("no_such.log")));
  CHECK(!io::looks_like_nccl_tests("# nThread is a word\n"));
  CHECK(io::looks_like_nccl_tests_file(data("markdown_copy_2node_allreduce.log")));
  CHECK(io::looks_like_nccl_tests("x\n  nThread 1 nGpus 8 minBytes 8\n"));
  CHECK(!io::looks_like_nccl_tests("the nThread 1 nGpus 8 line\n"));
  CHECK(!io::looks_like_nccl_tests("nThread 1\nnGpus 8\n"));
}

TEST_CASE("nccl-tests: calibrating from a log recovers the curve it was written from", "[io][nccl_tests][calib]") {
  // make_fixtures.py wrote the single-node log as t = 22 us + S * 1.75 / 360 GB/s, times a +-3 % wobble.
  calib::Measurements m;
  io::read_nccl_tests_file(data("single_node_allreduce.log"), m);
  CHECK(m.sources == std::vector<std::string>{data("single_node_allreduce.log")});
  CHECK(m.device == "NVIDIA H100 80GB HBM3");
  REQUIRE(m.collectives.size() == 28);
  const calib::Profile p = calib::calibrate(m);
  REQUIRE(p.collectives.size() == 1);
  CHECK(p.collectives.front().latency_s == Approx(22e-6).epsilon(0.03));
  CHECK(p.collectives.front().bus_bandwidth_Bps == Approx(360e9).epsilon(0.03));
  const auto res = calib::collective_residuals(m, p.collectives.front());
  REQUIRE(res.size() == 28);
  for (const auto& r : res) {
    CHECK(std::abs(r.residual) < 0.05);
    CHECK(r.has_loo);
    CHECK(std::abs(r.leave_one_out) < 0.06);
  }
  CHECK(calib::format_collective_residuals(m, p).find("leave-one-out") != std::string::npos);
}

TEST_CASE("nccl-tests: residuals are zero and leave-one-out exact on an exact line", "[calib][nccl_tests]") {
  calib::Measurements m;
  for (const double s : {1e3, 1e5, 1e7, 1e9})
    m.collectives.push_back({"all_reduce", "auto", 8, s, 1.75, 10e-6 + s * 1.75 / 100e9, {"x", 1, 1}});
  const calib::Profile p = calib::calibrate(m);
  for (const auto& r : calib::collective_residuals(m, p.collectives.front())) {
    CHECK(r.residual == Approx(0).margin(1e-9));
    CHECK(r.leave_one_out == Approx(0).margin(1e-9));
  }
}

TEST_CASE("nccl-tests: random line noise gives a ConfigError or a parse, never anything else", "[io][nccl_tests][fuzz]") {
  const std::vector<std::string> seeds = {slurp(data("single_node_allreduce.log")), slurp(data("mpirun_2node_allgather.log")),
                                          slurp(data("old_v2_allreduce.log")), slurp(data("reduce_scatter.json"))};
  const std::string noise = "# 0123456789 .:-[]<>,/\t\r\n\"{}N/A eE+nan Rank nThread nGpus size busbw time on device";
  std::mt19937 rng(12);
  int parsed = 0, rejected = 0;
  for (int i = 0; i < 600; ++i) {
    std::string text = seeds[static_cast<size_t>(i) % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 8);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0: text[at] = noise[rng() % noise.size()]; break;                      // flip a character
        case 1: text.erase(at, 1 + rng() % 40); break;                              // cut a piece
        case 2: text.insert(at, std::string(1 + rng() % 5, noise[rng() % noise.size()])); break;
        default: text.insert(text.find('\n', at) == std::string::npos ? text.size() : text.find('\n', at) + 1,
                             "[1," + std::to_string(rng() % 4) + "]<stdout>:# nThread 1 nGpus 1\n");
      }
    }
    try {
      const auto runs = io::parse_nccl_tests(text, "noise.log");
      calib::Measurements m;
      io::append_measurements(runs, m);
      ++parsed;
    } catch (const ConfigError&) {
      ++rejected;
    }
  }
  CHECK(parsed + rejected == 600);
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}

TEST_CASE("collective calibration: the topology's calibration: key, layered under --calibration", "[io][nccl_tests]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(PLANSIM_BINARY_DIR) / "test_collective_calibration";
  fs::create_directories(dir);
  {
    std::ofstream(dir / "nv.yaml") << "plansim_profile: 1\nname: nv\napplies_to: [H100]\nsource: test\n"
                                      "collectives: {efficiency: {nvlink: 0.5}}\n";
    std::ofstream(dir / "a100.yaml") << "plansim_profile: 1\nname: a100\napplies_to: [A100]\nsource: test\n"
                                        "collectives: {efficiency: {nvlink: 0.4}}\n";
    std::ofstream(dir / "cli.yaml") << "efficiency: {nvlink: 0.3}\n";
    // The shipped topology without its own calibration: line (the test names its own).
    std::string topo = slurp(std::string(PLANSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml");
    if (const size_t at = topo.find("\ncalibration:"); at != std::string::npos)
      topo.erase(at + 1, topo.find('\n', at + 1) - at);
    std::ofstream(dir / "topo.yaml") << topo << "calibration: nv.yaml\n";
    std::ofstream(dir / "wrong.yaml") << topo << "calibration: a100.yaml\n";
  }
  const auto t = io::collective_calibration(dir / "topo.yaml", "H100-SXM-80GB", "");
  CHECK(t.params.nvlink_efficiency == 0.5);
  CHECK(t.from == (dir / "nv.yaml").string());
  CHECK(io::collective_calibration(dir / "topo.yaml", "H100-SXM-80GB", (dir / "cli.yaml").string()).params.nvlink_efficiency ==
        0.3);
  CHECK(io::collective_calibration(dir / "topo.yaml", "H100-SXM-80GB", "none").params.nvlink_efficiency ==
        NcclModelParams{}.nvlink_efficiency);
  CHECK_THROWS_WITH(io::collective_calibration(dir / "wrong.yaml", "H100-SXM-80GB", ""),
                    Catch::Contains("calibration profile 'a100' does not apply to this topology's GPU, H100-SXM-80GB"));
  // The shipped DGX H100 names the HGX Hopper board's profile (fitted on H200 tables, applies to H100).
  const auto shipped = io::collective_calibration(std::string(PLANSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml",
                                                  "H100-SXM-80GB", "");
  CHECK(fs::path(shipped.from).filename() == "hgx-h200.yaml");
  CHECK(shipped.params.device_latency_us > 0);
}

TEST_CASE("nccl-tests: plansim-hw bench nccl JSON as runs for --compare", "[io][nccl_tests]") {
  const std::string bench = std::string(PLANSIM_SOURCE_DIR) + "/tests/data/calibrate/synthetic_all_reduce.json";
  CHECK(io::looks_like_bench_file(bench));
  CHECK(!io::looks_like_bench_file(data("reduce_scatter.json")));
  CHECK(!io::looks_like_nccl_tests_file(bench));
  const auto runs = io::runs_from_bench_file(bench);
  REQUIRE(runs.size() == 1);
  const auto& r = runs.front();
  CHECK(r.op == "all_reduce");
  CHECK(r.nranks == 8);
  CHECK(r.gpu_model == "Synthetic GPU");
  REQUIRE(!r.rows.empty());
  for (const auto& row : r.rows) {  // the file's curve: t = 20 us + S * 1.75 / 100 GB/s
    CHECK(row.out_of_place.time_us == Approx(20.0 + row.size_bytes * 1.75 / 100e3).epsilon(1e-6));
    CHECK(row.out_of_place.busbw_GBps == Approx(row.size_bytes * 1.75 / (row.out_of_place.time_us * 1e3)));
  }
}
