// The `collectives:` writer of fitted profiles (sim/calib/nccl_params_yaml.hpp): only keys that differ
// from NCCL's defaults, and reading the text back gives the same parameters.
#include <catch2/catch.hpp>

#include "sim/calib/nccl_params_yaml.hpp"
#include "sim/core/error.hpp"
#include "sim/io/nccl_calibration.hpp"

using namespace plansim;

namespace {
NcclModelParams reread(const std::string& section) {
  return io::parse_nccl_calibration("plansim_profile: 2\nname: t\nsource: test\n" + section, "t.yaml");
}
}  // namespace

TEST_CASE("nccl_params_yaml: defaults write only the per-call latencies (and the asked efficiency)", "[calib]") {
  const NcclModelParams d;
  CHECK(calib::nccl_params_yaml(d) == "collectives:\n  device_latency: 0.00 us\n  launch_overhead: 0.00 us\n");
  CHECK(calib::nccl_params_yaml(d, "nvls") == "collectives:\n  efficiency:\n    nvls: 0.69\n  device_latency: 0.00 us\n  launch_overhead: 0.00 us\n");
}

TEST_CASE("nccl_params_yaml: a start profile's constants survive the round trip", "[calib]") {
  NcclModelParams p;
  p.channel_cap_GBps = {0.0, 20.0, 0.0};
  p.ll_max_GBps = 87.7;
  p.ll_max_multi_node_GBps = {22.5, 19.0};
  p.nvlink_efficiency = 0.77;
  p.pcie_efficiency = 0.15;
  p.device_latency_us = 12.5;
  p.launch_overhead_us = 30;
  p.launch_overhead_harness = BenchHarness::torch;
  p.torch_loop_overhead_us = 7.35;
  p.nccl_channels = 4;
  p.pipeline_depth = 3;
  p.simple_slices_per_chunk = 1;
  p.net_latency_us = 7;
  p.hw_latency_us[1][0] = {2.0, 3.0, 9.0};
  p.nvls_channels = 24;           // Blackwell's (validate/calibration/start/blackwell-efa.yaml)
  p.nvls_chunk_bytes = 512 * 1024;
  p.collnet_efficiency = 1.0;     // Ampere's: NCCL's x 0.85 is from compute capability 9.0
  p.pat_efficiency = 0.6;
  p.base_latency_us[static_cast<size_t>(LatencyClass::pat)] = {-1, -1, 10.0};
  CHECK(calib::nccl_params_yaml(p).find("    collnet: 1.00\n") != std::string::npos);
  CHECK(calib::nccl_params_yaml(p).find("    pat: 0.60\n") != std::string::npos);
  CHECK(calib::nccl_params_yaml(p).find("    pat: [-1, -1, 10]\n") != std::string::npos);
  const NcclModelParams q = reread(calib::nccl_params_yaml(p));
  CHECK(q.nvls_channels == 24);
  CHECK(q.collnet_efficiency == Approx(1.0));
  CHECK(q.pat_efficiency == Approx(0.6));
  CHECK(q.base_latency_us == p.base_latency_us);
  CHECK(q.nvls_chunk_bytes == Approx(512 * 1024));
  CHECK(q.channel_cap_GBps == p.channel_cap_GBps);
  CHECK(q.ll_max_GBps == Approx(87.7));
  CHECK(q.ll_max_multi_node_GBps[0] == Approx(22.5));
  CHECK(q.ll_max_multi_node_GBps[1] == Approx(19.0));
  CHECK(q.nvlink_efficiency == Approx(0.77));
  CHECK(q.pcie_efficiency == Approx(0.15));
  CHECK(q.network_efficiency == Approx(NcclModelParams{}.network_efficiency));
  CHECK(q.device_latency_us == Approx(12.5));
  CHECK(q.launch_overhead_us == Approx(30));
  CHECK(q.launch_overhead_harness == BenchHarness::torch);
  CHECK(q.torch_loop_overhead_us == Approx(7.35));
  CHECK(q.nccl_channels == 4);
  CHECK(q.pipeline_depth == 3);
  CHECK(q.simple_slices_per_chunk == 1);
  CHECK(q.net_latency_us == Approx(7));
  CHECK(q.hw_latency_us[1][0] == p.hw_latency_us[1][0]);
  CHECK(q.hw_latency_us[0] == NcclModelParams{}.hw_latency_us[0]);
}

TEST_CASE("nccl_params_yaml: the launch floor's loop is a choice of two", "[calib][errors]") {
  CHECK(reread("collectives: {launch_overhead: 9 us}\n").launch_overhead_harness == BenchHarness::nccl_tests);
  try {
    (void)reread("collectives: {launch_overhead: 9 us, launch_overhead_harness: pytorch}\n");
    FAIL("accepted an unknown harness");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("t.yaml:4:") == 0);
    CHECK(std::string(e.what()).find("nccl-tests") != std::string::npos);
  }
}

TEST_CASE("nccl_params_yaml: a torch loop's per-call cost is a non-negative time", "[calib][errors]") {
  CHECK(reread("collectives: {torch_loop_overhead: 12.5 us}\n").torch_loop_overhead_us == Approx(12.5));
  CHECK(reread("collectives: {device_latency: 4 us}\n").torch_loop_overhead_us == 0);
  try {
    (void)reread("collectives: {torch_loop_overhead: -3 us}\n");
    FAIL("accepted a negative per-call cost");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("t.yaml:4:") == 0);
    CHECK(std::string(e.what()).find("torch_loop_overhead") != std::string::npos);
  }
}
