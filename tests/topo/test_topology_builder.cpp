#include <catch2/catch.hpp>

#include "sim/topo/topology.hpp"

using namespace plansim;

TEST_CASE("topology builder: routes take the fewest hops, deterministically", "[topo]") {
  // Two hosts of two GPUs behind one switch each, switches joined by two parallel spines.
  TopologyBuilder b("t");
  NodeId g[4];
  for (int i = 0; i < 4; ++i) g[i] = b.add_node(NodeKind::gpu, "gpu" + std::to_string(i), i / 2, i % 2);
  NodeId leaf0 = b.add_node(NodeKind::leaf_switch, "leaf0");
  NodeId leaf1 = b.add_node(NodeKind::leaf_switch, "leaf1");
  NodeId spine0 = b.add_node(NodeKind::spine_switch, "spine0");
  NodeId spine1 = b.add_node(NodeKind::spine_switch, "spine1");
  for (int i = 0; i < 4; ++i) b.add_duplex(g[i], i < 2 ? leaf0 : leaf1, LinkKind::infiniband, GBps(50), Time::ns(500));
  for (NodeId s : {spine0, spine1})
    for (NodeId l : {leaf0, leaf1}) b.add_duplex(l, s, LinkKind::infiniband, GBps(50), Time::ns(500));
  Topology t = std::move(b).build();
  CHECK(t.num_gpus() == 4);
  CHECK(t.num_hosts() == 2);
  CHECK(t.route(GpuId(0), GpuId(1)).size() == 2);
  CHECK(t.route(GpuId(0), GpuId(3)).size() == 4);
  CHECK(t.route(GpuId(0), GpuId(0)).empty());
  auto r1 = t.route(GpuId(0), GpuId(3));
  std::vector<LinkId> first(r1.begin(), r1.end());
  auto r2 = t.route(GpuId(0), GpuId(3));
  CHECK(std::vector<LinkId>(r2.begin(), r2.end()) == first);
  // Consecutive links chain from source to destination.
  CHECK(t.link(first.front()).src == t.gpu_node(GpuId(0)));
  CHECK(t.link(first.back()).dst == t.gpu_node(GpuId(3)));
  for (size_t i = 1; i < first.size(); ++i) CHECK(t.link(first[i - 1]).dst == t.link(first[i]).src);
}
