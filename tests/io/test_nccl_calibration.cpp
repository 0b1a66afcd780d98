#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/io/nccl_calibration.hpp"

using namespace plansim;

TEST_CASE("nccl calibration: keys override defaults, the rest stay", "[io][coll]") {
  const auto p = io::parse_nccl_calibration(
      "system: dgx-a100\nefficiency:\n  nvlink: 0.77\nchannels: 4\n"
      "base_latency_us:\n  ring: [5, 10, 7]\nhw_latency_us:\n  net:\n    ring: [1, 2, 3]\n", "cal.yaml");
  CHECK(p.nvlink_efficiency == 0.77);
  CHECK(p.network_efficiency == NcclModelParams{}.network_efficiency);
  CHECK(p.channels == 4);
  CHECK(p.base_latency_us[0][2] == 7.0);
  CHECK(p.hw_latency_us[2][0][1] == 2.0);
  CHECK(p.hw_latency_us[0][0][2] == NcclModelParams{}.hw_latency_us[0][0][2]);
}

TEST_CASE("nccl calibration: NVLS-Tree has its own latency row (nvls_tree)", "[io][coll]") {
  const auto p = io::parse_nccl_calibration("hw_latency_us:\n  net:\n    nvls_tree: [-1, -1, 20]\n", "cal.yaml");
  CHECK(p.hw_latency_us[2][static_cast<size_t>(LatencyClass::nvls_tree)][2] == 20.0);
  CHECK(NcclModelParams{}.hw_latency_us[2][static_cast<size_t>(LatencyClass::nvls_tree)][2] == 14.0);  // tuning.cc
  CHECK(NcclModelParams{}.hw_latency_us[0][static_cast<size_t>(LatencyClass::nvls_tree)][2] == 23.0);
  try {
    (void)io::parse_nccl_calibration("hw_latency_us:\n  net:\n    nvlstree: [-1, -1, 20]\n", "cal.yaml");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("cal.yaml:3:5") && Catch::Contains("nvls_tree"));
  }
}

TEST_CASE("nccl calibration: channels, per-channel caps, LL's cap and the pipeline depth", "[io][coll]") {
  const auto p = io::parse_nccl_calibration(
      "nccl_channels: 24\nchannel_cap:\n  LL128: 20 GB/s\nll_max: 87.7 GB/s\npipeline_depth: 4\n", "cal.yaml");
  CHECK(p.nccl_channels == 24);
  CHECK(p.channel_cap_GBps[1] == Approx(20.0));
  CHECK(p.channel_cap_GBps[2] == NcclModelParams{}.channel_cap_GBps[2]);
  CHECK(p.ll_max_GBps == Approx(87.7));
  CHECK(p.pipeline_depth == 4);
  const auto q = io::parse_nccl_calibration("net_latency: 12 us\nnet_overhead: 2 us\n", "cal.yaml");
  CHECK(q.net_latency_us == Approx(12.0));
  CHECK(q.net_overhead_us == Approx(2.0));
  const auto v = io::parse_nccl_calibration("nvls_channels: 24\nnvls_chunk: 64 KiB\n", "cal.yaml");
  CHECK(v.nvls_channels == 24);
  CHECK(v.nvls_chunk_bytes == 65536.0);
  const auto a = io::parse_nccl_calibration("ll_max_multi_node:\n  two_nodes: 22.5 GB/s\n  more_nodes: 19 GB/s\n", "cal.yaml");
  CHECK(a.ll_max_multi_node_GBps[0] == Approx(22.5));
  CHECK(a.ll_max_multi_node_GBps[1] == Approx(19.0));
  const auto b = io::parse_nccl_calibration("ll_max_multi_node:\n  more_nodes: 19 GB/s\n", "cal.yaml");
  CHECK(b.ll_max_multi_node_GBps[0] == NcclModelParams{}.ll_max_multi_node_GBps[0]);
}

TEST_CASE("nccl calibration: bad keys and values name file:line:col", "[io][coll]") {
  auto err = [](const std::string& text) {
    try {
      io::parse_nccl_calibration(text, "cal.yaml");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(err("efficiency:\n  nvlnk: 0.8\n"), Catch::Contains("cal.yaml:2:3") && Catch::Contains("nvlink"));
  CHECK_THAT(err("efficiency:\n  nvlink: 1.5\n"), Catch::Contains("cal.yaml:2:11"));
  CHECK_THAT(err("efficiency:\n  pat: 1.5\n"), Catch::Contains("cal.yaml:2:8"));
  CHECK_THAT(err("base_latency_us:\n  pat: [8]\n"), Catch::Contains("cal.yaml:2:8") && Catch::Contains("three"));
  CHECK_THAT(err("base_latency_us:\n  ring: [1, 2]\n"), Catch::Contains("cal.yaml:2:9") && Catch::Contains("three"));
  CHECK_THAT(err("chanels: 2\n"), Catch::Contains("cal.yaml:1:1") && Catch::Contains("channels"));
  CHECK_THAT(err("nccl_channels: 0\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("nccl_channels: 65\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("channel_cap:\n  LL129: 20 GB/s\n"), Catch::Contains("cal.yaml:2:3") && Catch::Contains("LL128"));
  CHECK_THAT(err("channel_cap:\n  LL128: -2 GB/s\n"), Catch::Contains("cal.yaml:2:"));
  CHECK_THAT(err("ll_max: fast\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("ll_max_multi_node:\n  three_nodes: 20 GB/s\n"), Catch::Contains("cal.yaml:2:3") && Catch::Contains("more_nodes"));
  CHECK_THAT(err("ll_max_multi_node:\n  two_nodes: -1 GB/s\n"), Catch::Contains("cal.yaml:2:"));
  CHECK_THAT(err("ll_max_multi_node: 20 GB/s\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("pipeline_depth: 0\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("net_latency: -3 us\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("net_overhead: slow\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("nvls_channels: 0\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("nvls_channels: 65\n"), Catch::Contains("cal.yaml:1:"));
  CHECK_THAT(err("nvls_chunk: 8 KiB\n"), Catch::Contains("cal.yaml:1:") && Catch::Contains("16 KiB"));
  CHECK_THAT(err("nvls_chunk: big\n"), Catch::Contains("cal.yaml:1:"));
}
