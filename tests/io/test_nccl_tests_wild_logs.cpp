// The nccl-tests reader (io/nccl_tests_reader.hpp) on logs as they are found in the wild: launcher prefixes
// (pdsh, kubectl --prefix), a copy from rendered Markdown that lost every '#', cputime and timestamp columns,
// ms units, Windows line ends, several runs in one file.
#include <catch2/catch.hpp>

#include <cctype>
#include <sstream>

#include "sim/calib/measurements.hpp"
#include "sim/io/nccl_tests_reader.hpp"
#include "tests/support/nccl_tests_fixtures.hpp"

using namespace plansim;
using namespace plansim::test_nccl;

TEST_CASE("nccl-tests: layouts in the wild (cputime, timestamps, ms units, Windows line ends, several runs)",
          "[io][nccl_tests]") {
  // -C 1 prints cputime; -T 1 adds a timestamp of two words; CRLF line ends.
  std::string t = "# Collective test starting: all_reduce_perf\r\n"
                  "# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\r\n"
                  "#  Rank  0 Group  0 Pid 1 on h device 0 [0x01] NVIDIA A100-SXM4-40GB\r\n"
                  "#  Rank  1 Group  0 Pid 1 on h device 1 [0x02] NVIDIA A100-SXM4-40GB\r\n"
                  "#  size count type redop root cputime algbw busbw #wrong cputime algbw busbw #wrong timestamp\r\n"
                  "  1024 256 float sum -1 20.0 0.05 0.05 0 19.0 0.05 0.05 0 2025-01-02 03:04:05\r\n";
  auto runs = io::parse_nccl_tests(t, "t.log");
  CHECK(runs.front().cputime);
  CHECK(runs.front().rows.front().in_place.time_us == 19.0);
  calib::Measurements m;
  CHECK_THROWS_WITH(io::append_measurements(runs, m), Catch::Contains("t.log:2: this run reports CPU times"));
  // A units line in ms scales the times.
  const std::string ms = small_log("all_reduce_perf", "") ;
  std::string ms_log = ms.substr(0, ms.rfind("#        (B)")) +
                       "#        (B)    (elements)                               (ms)  (GB/s)  (GB/s)            (ms)  (GB/s)  (GB/s)\n"
                       "        1024   256  float  sum  -1  0.020  0.05  0.05  0  0.020  0.05  0.05  0\n";
  CHECK(io::parse_nccl_tests(ms_log, "t.log").front().rows.front().out_of_place.time_us == Approx(20.0));
  // Two runs in one log (a script running two tests): each its own op.
  const std::string two = small_log("all_reduce_perf", "        1024   256  float  sum  -1  20.0  1.00  1.00  0  20.0  1.00  1.00  0\n") +
                          "# Avg bus bandwidth : 1.0\n" +
                          small_log("all_gather_perf", "        1024   256  float  none  -1  20.0  1.00  0.50  0  20.0  1.00  0.50  0\n");
  runs = io::parse_nccl_tests(two, "t.log");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].op == "all_reduce");
  CHECK(runs[1].op == "all_gather");
  CHECK(runs[1].pos.line == 11);
  // A binary named after a run (the next test's command) is not that run's: the first run below is told by
  // busbw/algbw, the second by the command before its header.
  const std::string bare = "        1024   256  float  sum  -1  20.0  1.00  1.00  0  20.0  1.00  1.00  0\n";
  const std::string scripted = small_log("", bare) + "# Avg bus bandwidth : 1.0\n+ ./build/all_gather_perf -b 1K\n" +
                               small_log("", "        1024   256  float  none  -1  20.0  1.00  0.50  0  20.0  1.00  0.50  0\n");
  runs = io::parse_nccl_tests(scripted, "t.log");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].op == "all_reduce");
  CHECK(runs[0].op_source.find("busbw/algbw") == 0);
  CHECK(runs[1].op == "all_gather");
  CHECK(runs[1].op_source == "the command at line 9");
}


TEST_CASE("nccl-tests: a Markdown copy (the '#' lost), pdsh and kubectl --prefix logs read as the original",
          "[io][nccl_tests]") {
  const auto md = io::load_nccl_tests(data("markdown_copy_2node_allreduce.log"));
  REQUIRE(md.size() == 1);
  CHECK(md[0].op == "all_reduce");
  CHECK(md[0].op_source == "its 'Collective test starting' line");
  CHECK(md[0].nccl_version == "2.27.3");
  CHECK(md[0].pos.line == 4);
  CHECK(md[0].nranks == 16);
  CHECK(md[0].hosts == std::vector<std::string>{"node-a", "node-b"});
  CHECK(md[0].rows.size() == 21);  // 1 KiB .. 1 GiB
  CHECK(md[0].rows.front().in_place.present);
  REQUIRE(md[0].avg_busbw_GBps);
  CHECK(*md[0].avg_busbw_GBps == Approx(77.1295));
  CHECK(md[0].out_of_bounds == 0);

  const auto pdsh = io::load_nccl_tests(data("pdsh_2node_allreduce.log"));
  REQUIRE(pdsh.size() == 1);
  CHECK(pdsh[0].op == "all_reduce");
  CHECK(pdsh[0].nranks == 16);
  CHECK(pdsh[0].rows.size() == 11);  // 1 MiB .. 1 GiB; the NCCL INFO line ("HOST:PID:TID") is not a prefix
  CHECK(pdsh[0].rows.front().pos.column == 14);  // "node-a: " and the right-aligned size, counted in the file
  CHECK(pdsh[0].avg_busbw_GBps);

  const auto kube = io::load_nccl_tests(data("kubectl_prefix_allgather.log"));
  REQUIRE(kube.size() == 1);
  CHECK(kube[0].op == "all_gather");
  CHECK(kube[0].nodes() == 2);
  CHECK(kube[0].rows.size() == 9);  // 1 MiB .. 256 MiB

  // The same rows as their '#'-keeping originals would give: the Markdown copy against one rebuilt with '#'.
  std::string hashed;
  std::istringstream in(slurp(data("markdown_copy_2node_allreduce.log")));
  for (std::string l; std::getline(in, l);) {
    const size_t first = l.find_first_not_of(' ');  // result rows and the command line keep no '#'
    const bool keep = first != std::string::npos && (std::isdigit(static_cast<unsigned char>(l[first])) || l[first] == '$');
    hashed += (keep ? "" : "# ") + l + "\n";
  }
  const auto orig = io::parse_nccl_tests(hashed, "t.log");
  REQUIRE(orig.front().rows.size() == md[0].rows.size());
  for (size_t i = 0; i < orig.front().rows.size(); ++i) {
    CHECK(orig.front().rows[i].size_bytes == md[0].rows[i].size_bytes);
    CHECK(orig.front().rows[i].out_of_place.time_us == md[0].rows[i].out_of_place.time_us);
    CHECK(orig.front().rows[i].in_place.busbw_GBps == md[0].rows[i].in_place.busbw_GBps);
  }

  // Without '#', other lines are nccl-tests' only after a 'nThread ... nGpus' header: before it, a line that
  // starts "Rank" or "size" is someone else's, and so are "HOST:PID" and "Warning: ..." lines.
  const std::string chatter = "Rank 0: loading data\nsize of batch 8\nWarning: Permanently added 'x' to known hosts.\n";
  CHECK(error_of(chatter + small_log("all_reduce_perf", "        1024   256  float  sum  -1  20.0  1.00  1.00  0  20.0  1.00  1.00  0\n")) == "");
  CHECK(error_of("nThread 1 nGpus 2 minBytes 8\nsize count type redop root time algbw busbw #wrong\n"
                 "  1024 256 float sum -1 20.0 1.00 1.00 0 2\n")
            .find("t.log:3:") == 0);  // a row of 10 values under a header of 9: still strict
}
