// Topology::route_island_links (the parts of a route between islands inside its end islands, found
// without walking the fabric; plan/symmetry.cpp's tp_links_private relies on it) against route().
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/io/topology_loader.hpp"
#include "tests/topo/topo_test_util.hpp"

using namespace plansim;
using namespace plansim::test;

namespace {

bool inside_island(const Topology& t, LinkId l) {
  const Link& k = t.link(l);
  return t.island(k.src) >= 0 && t.island(k.src) == t.island(k.dst);
}

// Every GPU pair: where route_island_links answers, it is route()'s links inside islands, in order, and
// the route's other links touch a fabric switch. Returns how many pairs it answered.
size_t check_all_pairs(const Topology& t) {
  size_t answered = 0;
  std::vector<LinkId> parts;
  for (size_t a = 0; a < t.num_gpus(); ++a)
    for (size_t b = 0; b < t.num_gpus(); ++b) {
      if (a == b) continue;
      const GpuId ga = GpuId::from(a), gb = GpuId::from(b);
      const bool ok = t.route_island_links(ga, gb, parts);
      const bool same_island = t.island(t.gpu_node(ga)) == t.island(t.gpu_node(gb));
      if (same_island) CHECK_FALSE(ok);
      if (!ok) continue;
      ++answered;
      std::vector<LinkId> expected;
      for (LinkId l : t.route(ga, gb)) {
        if (inside_island(t, l)) expected.push_back(l);
        else CHECK((t.island(t.link(l).src) < 0 || t.island(t.link(l).dst) < 0));
      }
      INFO(t.name() << ": GPU " << a << " -> " << b);
      CHECK(parts == expected);
    }
  return answered;
}

}  // namespace

TEST_CASE("route_island_links: the island parts of every inter-island route of shipped topologies", "[topo][route]") {
  for (const auto& [file, nodes] : std::vector<std::pair<std::string, std::optional<int>>>{
           {"llama3-cluster.yaml", 12}, {"dgx-h100.yaml", 6}, {"dgx-a100.yaml", 6}, {"ethernet-h100.yaml", 6},
           {"cloud-10gbe-h100.yaml", 4}, {"jean-zay-a100.yaml", 6}, {"hgx-h200.yaml", 4}}) {
    INFO(file);
    const Topology t = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/" + file, nodes);
    CHECK(check_all_pairs(t) == t.num_gpus() * (t.num_gpus() - 8));  // every pair of different servers
  }
}

TEST_CASE("route_island_links: shared NICs, NVLink domains, and cables that bypass the fabric", "[topo][route]") {
  ClusterSpec s = h100_fat_tree3(6);
  s.node.nics.count = 2;  // four GPUs per NIC
  s.node.nics.affinity = {0, 0, 0, 0, 1, 1, 1, 1};
  const Topology shared = build_cluster(s);
  CHECK(check_all_pairs(shared) == shared.num_gpus() * (shared.num_gpus() - 8));

  ClusterSpec d = h100_nvl_domains(8);
  const Topology domains = build_cluster(d);
  CHECK(check_all_pairs(domains) == domains.num_gpus() * (domains.num_gpus() - 16));  // two domains of 16 GPUs

  // Servers cabled NIC to NIC: routes fall back to a whole-graph BFS, which route_island_links leaves to route().
  ClusterSpec c = h100_cluster(2);
  c.extra_links.push_back(ExtraLink{"n0.nic0", "n1.nic0", {}, {}, LinkKind::ethernet, Gbps(100), Time::us(1), true});
  const Topology cabled = build_cluster(c);
  CHECK(check_all_pairs(cabled) == 0);
}

TEST_CASE("route_uncached: route()'s links, without filling the cache", "[topo][route]") {
  const Topology t = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml", 4);
  std::vector<LinkId> scratch;
  for (const auto& [a, b] : std::vector<std::pair<uint32_t, uint32_t>>{{0, 5}, {3, 17}, {30, 2}, {7, 7}}) {
    const auto first = t.route_uncached(GpuId(a), GpuId(b), scratch);
    const std::vector<LinkId> uncached(first.begin(), first.end());
    const auto cached = t.route(GpuId(a), GpuId(b));  // computed now, then found by route_uncached
    CHECK(uncached == std::vector<LinkId>(cached.begin(), cached.end()));
    const auto again = t.route_uncached(GpuId(a), GpuId(b), scratch);
    CHECK(again.data() == cached.data());
  }
}
