#include <catch2/catch.hpp>

#include "sim/topo/max_flow.hpp"
#include "sim/topo/topology_dot.hpp"
#include "sim/topo/topology_stats.hpp"
#include "tests/topo/topo_test_util.hpp"

using namespace plansim;
using namespace plansim::test;

TEST_CASE("gpu catalog: cited values and names", "[topo][catalog]") {
  auto h = find_gpu_model("H100-SXM-80GB");
  REQUIRE(h);
  CHECK(h->peak(DType::bf16).value() == Approx(989e12));
  CHECK(h->peak(DType::fp8).value() == Approx(1979e12));
  CHECK(h->hbm_bandwidth.value() == Approx(3.35e12));
  CHECK(h->sm_count == 132);
  CHECK_FALSE(find_gpu_model("A100-SXM-80GB")->supports(DType::fp8));
  CHECK(find_gpu_model("GB200")->peak(DType::bf16).value() == Approx(2500e12));
  CHECK(find_gpu_model("RTX-4090")->hbm_capacity.value() == Approx(24.0 * 1073741824.0));
  for (const char* n : {"A100-SXM-40GB", "A100-SXM-80GB", "H100-SXM-80GB", "H100-PCIe", "H200-SXM-141GB", "B200", "GB200", "RTX-4090"})
    CHECK(find_gpu_model(n).has_value());
  CHECK_FALSE(find_gpu_model("h100").has_value());
  CHECK(gpu_model_names().size() >= 8);
}

TEST_CASE("max flow: closed forms", "[topo][stats]") {
  // Two GPUs behind one switch each, the switches joined by 3 parallel 10 GB/s links: 30 GB/s.
  TopologyBuilder b("mf");
  NodeId g0 = b.add_node(NodeKind::gpu, "a", 0, 0), g1 = b.add_node(NodeKind::gpu, "b", 1, 0);
  NodeId s0 = b.add_node(NodeKind::leaf_switch, "s0"), s1 = b.add_node(NodeKind::leaf_switch, "s1");
  b.add_duplex(g0, s0, LinkKind::ethernet, GBps(100), Time::zero());
  b.add_duplex(g1, s1, LinkKind::ethernet, GBps(100), Time::zero());
  for (int i = 0; i < 3; ++i) b.add_duplex(s0, s1, LinkKind::ethernet, GBps(10), Time::zero());
  Topology t = std::move(b).build();
  CHECK(max_flow(t, {g0}, {g1}).value() == Approx(30e9));
}

TEST_CASE("summary: bisection and oversubscription of a fat-tree", "[topo][stats]") {
  ClusterSpec s = h100_fat_tree3(64);  // 512 GPUs on 16 leaves: exactly one pod
  TopologySummary sum = summarize(build_cluster(s));
  CHECK(sum.gpus == 512);
  // Non-blocking: half the GPUs can send at their full NIC rate.
  CHECK(sum.bisection.value() == Approx(256 * 50e9));
  REQUIRE(!sum.oversubscription.empty());
  CHECK(sum.oversubscription[0].tier == "leaf");
  CHECK(sum.oversubscription[0].max_ratio == Approx(1.0));
  // Halve the leaf uplinks: 2:1 at the leaves, and the bisection halves.
  s.fabric.leaf_up_links = 16;
  s.fabric.spine_up_links = 8;
  s.fabric.cores = 256;
  TopologySummary half = summarize(build_cluster(s));
  CHECK(half.oversubscription[0].max_ratio == Approx(2.0));
  CHECK(half.bisection.value() == Approx(128 * 50e9));
  // Distances: same server, same leaf, across spine.
  REQUIRE(sum.distances.size() == 3);
  CHECK(sum.distances[0].distance == "same server");
  CHECK(sum.distances[0].hops == 2);
  CHECK(sum.distances[0].latency == Time::ns(500));
  CHECK(sum.distances[0].bottleneck.value() == Approx(450e9));
  CHECK(sum.distances[1].distance == "same leaf");
  CHECK(sum.distances[1].hops == 6);
  CHECK(sum.distances[2].distance == "across spine");
  CHECK(sum.distances[2].hops == 8);
  // 4 PCIe links (GPU-switch-NIC on each side), 2 NIC cables, 2 leaf-spine links.
  CHECK(sum.distances[2].latency == Time::ns(4 * 500 + 2 * 500 + 2 * 300));
}

TEST_CASE("dot: small graphs in full, big ones collapsed with a note", "[topo][stats]") {
  std::string small = to_dot(build_cluster(h100_cluster(1)));
  CHECK(small.find("\"n0.gpu0\" -> \"n0.nvswitch\"") != std::string::npos);
  std::string big = to_dot(build_cluster(h100_fat_tree3(256)));
  CHECK(big.find("collapsed: 16 of 256 servers") != std::string::npos);
  CHECK(big.find("n3: 8 GPUs") != std::string::npos);
}
