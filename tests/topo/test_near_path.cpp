// Router::near_path (a route inside an island found from out-links when it is one or two hops, NVLink
// first, then any island link) against the reverse BFS it replaces: every pair of nodes of every island,
// and every GPU pair across islands (whose GPU <-> NIC segments use it), routed by two Routers over the
// same graph, one with the shortcut and one without, gives the same links.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/io/topology_loader.hpp"
#include "sim/topo/router.hpp"
#include "tests/topo/topo_test_util.hpp"

using namespace plansim;
using namespace plansim::test;

namespace {

// Routes between island nodes (GPUs, NVSwitches, PCIe switches, NICs, CPUs of one island), and between
// GPUs of different islands, with and without the shortcut; returns how many pairs inside an island
// were GPU pairs.
size_t compare_island_routes(const Topology& t) {
  std::vector<std::vector<LinkId>> out(t.nodes().size());
  for (const Link& l : t.links()) out[l.src.index()].push_back(l.id);
  detail::Router fast(t.nodes(), t.links(), out, t.load_balance());
  detail::Router slow(t.nodes(), t.links(), out, t.load_balance());
  slow.set_near_shortcut(false);
  size_t gpu_pairs = 0;
  for (const Node& a : t.nodes())
    for (const Node& b : t.nodes()) {
      if (a.id == b.id || fast.island(a.id) < 0 || fast.island(b.id) < 0) continue;
      if (fast.island(a.id) != fast.island(b.id) && (a.kind != NodeKind::gpu || b.kind != NodeKind::gpu)) continue;
      if (a.kind == NodeKind::gpu && b.kind == NodeKind::gpu && fast.island(a.id) == fast.island(b.id)) ++gpu_pairs;
      INFO(t.name() << ": " << a.name << " -> " << b.name);
      CHECK(fast.route(a.id, b.id) == slow.route(a.id, b.id));
    }
  return gpu_pairs;
}

}  // namespace

TEST_CASE("near_path: the BFS's routes inside every island of shipped topologies", "[topo][route]") {
  for (const auto& [file, nodes] : std::vector<std::pair<std::string, std::optional<int>>>{
           {"llama3-cluster.yaml", 2}, {"dgx-h100.yaml", 2}, {"dgx-a100.yaml", 2}, {"ethernet-h100.yaml", 2},
           {"cloud-10gbe-h100.yaml", 2}, {"jean-zay-a100.yaml", 2}, {"hgx-h200.yaml", 2}, {"gb200-nvl72.yaml", 1},
           {"pcie-8gpu.yaml", 1}, {"pcie-8gpu-1-per-switch.yaml", 1}}) {
    INFO(file);
    const Topology t = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/" + file, nodes);
    CHECK(compare_island_routes(t) > 0);
  }
}

TEST_CASE("near_path: NVLink domains, parallel NVLinks and direct GPU-to-GPU NVLinks", "[topo][route]") {
  ClusterSpec d = h100_nvl_domains(4);
  CHECK(compare_island_routes(build_cluster(d)) == 16 * 15);

  // Hand-built: GPUs 0-1 joined directly by two parallel NVLinks, both on two switches (equal-cost
  // two-hop paths), GPU 2 on one switch only, GPU 3 reached over PCIe alone, through either of two
  // PCIe switches that GPUs 0 and 3 share (equal-cost two-hop PCIe paths).
  TopologyBuilder b("hand");
  b.set_gpu_spec(h100_cluster(1).node.gpu);
  b.set_num_hosts(1);
  std::vector<NodeId> g;
  for (int i = 0; i < 4; ++i) g.push_back(b.add_node(NodeKind::gpu, "g" + std::to_string(i), 0, i));
  const NodeId s0 = b.add_node(NodeKind::nvswitch, "s0", 0), s1 = b.add_node(NodeKind::nvswitch, "s1", 0);
  const NodeId p = b.add_node(NodeKind::pcie_switch, "p", 0);
  b.add_duplex(g[0], g[1], LinkKind::nvlink, GBps(50), Time::ns(100));
  b.add_duplex(g[0], g[1], LinkKind::nvlink, GBps(50), Time::ns(100));
  for (const NodeId s : {s0, s1})
    for (int i = 0; i < 2; ++i) b.add_duplex(g[static_cast<size_t>(i)], s, LinkKind::nvlink, GBps(100), Time::ns(250));
  b.add_duplex(g[2], s1, LinkKind::nvlink, GBps(100), Time::ns(250));
  for (int i = 0; i < 4; ++i) b.add_duplex(g[static_cast<size_t>(i)], p, LinkKind::pcie, GBps(63), Time::ns(500));
  const NodeId p2 = b.add_node(NodeKind::pcie_switch, "p2", 0);
  for (const size_t i : {size_t{0}, size_t{3}}) b.add_duplex(g[i], p2, LinkKind::pcie, GBps(63), Time::ns(500));
  CHECK(compare_island_routes(std::move(b).build()) == 12);
}
