#include <catch2/catch.hpp>

#include <chrono>
#include <ctime>
#include <map>
#include <random>
#include <set>

#include "sim/io/topology_loader.hpp"
#include "tests/topo/topo_test_util.hpp"

using namespace plansim;
using namespace plansim::test;

namespace {
GpuId gpu(int server, int local) { return GpuId::from(server * 8 + local); }

// Consecutive links chain from a to b.
void check_chain(const Topology& t, GpuId a, GpuId b) {
  auto r = t.route(a, b);
  REQUIRE(!r.empty());
  CHECK(t.link(r.front()).src == t.gpu_node(a));
  CHECK(t.link(r.back()).dst == t.gpu_node(b));
  for (size_t i = 1; i < r.size(); ++i) CHECK(t.link(r[i - 1]).dst == t.link(r[i]).src);
}
}  // namespace

TEST_CASE("router: hop counts at each distance in a 3-tier fat-tree", "[topo][route]") {
  // 80 servers = 640 NICs = 20 leaves = 2 pods (16 leaves + 4).
  Topology t = build_cluster(h100_fat_tree3(80));
  CHECK(t.route(gpu(0, 0), gpu(0, 5)).size() == 2);   // GPU -> NVSwitch -> GPU
  CHECK(t.route(gpu(0, 0), gpu(1, 0)).size() == 6);   // GPU, PCIe, NIC, leaf, NIC, PCIe, GPU (4 servers/leaf)
  CHECK(t.route(gpu(0, 0), gpu(4, 0)).size() == 8);   // + spine
  CHECK(t.route(gpu(0, 0), gpu(64, 0)).size() == 10); // + core: server 64 is in pod 1
  check_chain(t, gpu(0, 0), gpu(64, 3));
  CHECK(route_visits(t, gpu(0, 0), gpu(64, 0), "n0.pcie0"));
}

TEST_CASE("router: matches a plain BFS's hop count between random GPU pairs", "[topo][route]") {
  Topology t = build_cluster(h100_fat_tree3(80));
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> pick(0, static_cast<uint32_t>(t.num_gpus() - 1));
  for (int i = 0; i < 300; ++i) {
    GpuId a(pick(rng)), b(pick(rng));
    if (a == b) continue;
    INFO(t.node(t.gpu_node(a)).name << " -> " << t.node(t.gpu_node(b)).name);
    CHECK(static_cast<int>(t.route(a, b).size()) == bfs_hops(t, t.gpu_node(a), t.gpu_node(b)));
  }
}

TEST_CASE("router: inter-server traffic leaves through the GPU's affine NIC", "[topo][route]") {
  // Two NICs per PCIe switch: NIC 2k and 2k+1 are equally close to GPUs 2k and 2k+1; affinity decides.
  ClusterSpec s = h100_fat_tree3(8);
  Topology t = build_cluster(s);
  for (int i = 0; i < 8; ++i) {
    CHECK(route_visits(t, gpu(0, i), gpu(5, i), "n0.nic" + std::to_string(i)));
    CHECK(route_visits(t, gpu(0, i), gpu(5, i), "n5.nic" + std::to_string(i)));
  }
  // Two GPUs per NIC (4 NICs): GPU i uses NIC i / 2, also as the destination.
  s.node.nics.count = 4;
  s.node.nics.affinity = {0, 0, 1, 1, 2, 2, 3, 3};
  Topology t2 = build_cluster(s);
  CHECK(route_visits(t2, gpu(0, 3), gpu(7, 6), "n0.nic1"));
  CHECK(route_visits(t2, gpu(0, 3), gpu(7, 6), "n7.nic3"));
  // A permuted affinity: the NIC is placed on its GPUs' PCIe switch, so no CPU hop.
  s.node.nics.affinity = {3, 3, 2, 2, 1, 1, 0, 0};
  Topology t3 = build_cluster(s);
  CHECK(route_names(t3, gpu(0, 0), gpu(7, 0))[1] == "n0.pcie0");
  CHECK(route_names(t3, gpu(0, 0), gpu(7, 0))[2] == "n0.nic3");
  CHECK_FALSE(route_visits(t3, gpu(0, 0), gpu(7, 0), "n0.cpu0"));
}

TEST_CASE("router: ECMP spreads pairs over spines and cores, deterministically", "[topo][route]") {
  Topology t = build_cluster(h100_fat_tree3(80));
  std::map<std::string, int> spine_use, core_use;
  // All 32 GPUs of leaf 0 to all 32 GPUs of leaf 1 (same pod): each route crosses one spine.
  for (int a = 0; a < 32; ++a)
    for (int b = 32; b < 64; ++b)
      for (const auto& n : route_names(t, GpuId::from(a), GpuId::from(b))) {
        if (n.rfind("spine", 0) == 0) ++spine_use[n];
      }
  CHECK(spine_use.size() >= 30);  // of the pod's 32
  int max_use = 0;
  for (auto& [n, c] : spine_use) max_use = std::max(max_use, c);
  CHECK(max_use <= 2 * 1024 / 32);  // no spine carries more than twice its fair share
  // Across pods: many cores.
  for (int a = 0; a < 64; ++a)
    for (const auto& n : route_names(t, GpuId::from(a), GpuId::from(512 + a)))
      if (n.rfind("core", 0) == 0) ++core_use[n];
  CHECK(core_use.size() >= 48);
  // Ethernet fabrics hash each (source, destination) pair instead (ECMP): one destination's routes
  // from different sources spread over several spines.
  ClusterSpec eth = h100_fat_tree3(80);
  eth.node.nics.kind = LinkKind::ethernet;
  Topology te = build_cluster(eth);
  std::set<std::string> spines_to_one;
  for (int a = 0; a < 32; ++a)
    for (const auto& n : route_names(te, GpuId::from(a), GpuId::from(40)))
      if (n.rfind("spine", 0) == 0) spines_to_one.insert(n);
  CHECK(spines_to_one.size() >= 8);
  // Same answer from an identically built topology (no pointer-order dependence).
  Topology t2 = build_cluster(h100_fat_tree3(80));
  for (int a = 0; a < 64; a += 7) CHECK(route_names(t, GpuId::from(a), GpuId::from(600)) == route_names(t2, GpuId::from(a), GpuId::from(600)));
}

namespace {
// The most routes of `pairs` that cross one fabric link (switch <-> switch or NIC <-> switch).
int max_fabric_load(const Topology& t, const std::vector<std::pair<GpuId, GpuId>>& pairs) {
  std::map<uint32_t, int> load;
  int most = 0;
  for (auto [a, b] : pairs)
    for (LinkId l : t.route(a, b))
      if (t.link(l).kind == LinkKind::infiniband || t.link(l).kind == LinkKind::ethernet)
        most = std::max(most, ++load[l.value]);
  return most;
}
}  // namespace

TEST_CASE("router: InfiniBand routes by destination, so a permutation meets no collisions", "[topo][route]") {
  // The DP ring of TP=4 on DGX A100 (GPUs 0 and 4 of each server): each server's ring leaves through
  // one rail and enters the next server on the other, so every hop crosses the spines. The subnet
  // manager's destination routing (D-mod-K) gives the 16 destinations of one leaf 16 distinct up-links
  // and spine-to-leaf cables: no link carries two hops (ECMP hashing put up to 4 on one).
  Topology t = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/dgx-a100.yaml", 16);
  std::vector<std::pair<GpuId, GpuId>> ring;
  for (int k = 0; k < 16; ++k) {
    ring.emplace_back(gpu(k, 4), gpu((k + 1) % 16, 0));
    ring.emplace_back(gpu(k, 0), gpu((k + 1) % 16, 4));
  }
  CHECK(max_fabric_load(t, ring) == 1);
  // A fat-tree leaf's 32 NICs to the next leaf's 32 (a shift): each of the 32 spines once up, once down.
  Topology f = build_cluster(h100_fat_tree3(80));
  std::vector<std::pair<GpuId, GpuId>> shift;
  for (int a = 0; a < 32; ++a) shift.emplace_back(GpuId::from(a), GpuId::from(32 + (a + 5) % 32));
  CHECK(max_fabric_load(f, shift) == 1);
  // Deterministic and independent of the source: two sources to one GPU share the way down.
  auto down = [&](GpuId a) {
    auto r = route_names(f, a, GpuId::from(600));
    return std::vector<std::string>(r.end() - 5, r.end());
  };
  CHECK(down(GpuId::from(0)) == down(GpuId::from(17)));
}

TEST_CASE("router: fabric.load_balance overrides the link kind's default path choice", "[topo][route]") {
  // The fat-tree shift above: destination routing gives every hop its own up-link and cable; the
  // same fabric with flow hashing (ECMP) puts some on one link; an Ethernet fabric told to route by
  // destination behaves like the InfiniBand one.
  std::vector<std::pair<GpuId, GpuId>> shift;
  for (int a = 0; a < 32; ++a) shift.emplace_back(GpuId::from(a), GpuId::from(32 + (a + 5) % 32));
  ClusterSpec s = h100_fat_tree3(80);
  CHECK(max_fabric_load(build_cluster(s), shift) == 1);
  s.fabric.load_balance = LoadBalance::flow_hash;
  const Topology hashed = build_cluster(s);
  CHECK(hashed.load_balance() == LoadBalance::flow_hash);
  CHECK(max_fabric_load(hashed, shift) > 1);
  s.node.nics.kind = LinkKind::ethernet;
  s.fabric.load_balance = LoadBalance::by_link_kind;
  CHECK(max_fabric_load(build_cluster(s), shift) > 1);
  s.fabric.load_balance = LoadBalance::destination;
  CHECK(max_fabric_load(build_cluster(s), shift) == 1);
}

TEST_CASE("router: P2P off sends peer traffic through the CPU", "[topo][route]") {
  ClusterSpec s = h100_cluster(1);
  s.node.nvswitch.reset();
  s.node.nics.count = 0;
  s.node.nics.affinity.clear();
  s.node.pcie.p2p = false;
  Topology t = build_cluster(s);
  CHECK(route_names(t, gpu(0, 0), gpu(0, 1)) ==
        std::vector<std::string>{"n0.gpu0", "n0.pcie0", "n0.cpu0", "n0.pcie0.down", "n0.gpu1"});
  CHECK(t.route(gpu(0, 0), gpu(0, 7)).size() == 4);
  s.node.pcie.p2p = true;
  Topology t2 = build_cluster(s);
  CHECK(route_names(t2, gpu(0, 0), gpu(0, 1)) == std::vector<std::string>{"n0.gpu0", "n0.pcie0", "n0.gpu1"});
  CHECK(t2.route(gpu(0, 0), gpu(0, 7)).size() == 4);  // across PCIe switches via the root complex
}

TEST_CASE("router: a multi-server NVLink domain stays on NVLink", "[topo][route]") {
  ClusterSpec s = h100_nvl_domains(8);
  Topology t = build_cluster(s);
  CHECK(t.num_islands() == 2);
  auto g = [](int server, int local) { return GpuId::from(server * 4 + local); };
  CHECK(route_names(t, g(0, 0), g(3, 2)) == std::vector<std::string>{"n0.gpu0", "nvl0.nvswitch", "n3.gpu2"});
  CHECK(route_visits(t, g(0, 0), g(4, 0), "leaf0"));  // next domain: over the network
  CHECK(t.island(t.gpu_node(g(3, 3))) == 0);
  CHECK(t.island(t.gpu_node(g(4, 0))) == 1);
}

TEST_CASE("router: 100k random routes on a 16k-GPU 3-tier fat-tree", "[topo][bench]") {
  // CPU time (std::clock) is what the target is checked on: wall time on a shared machine is noisy.
  auto t0 = std::chrono::steady_clock::now();
  Topology t = build_cluster(h100_fat_tree3(2048));
  auto t1 = std::chrono::steady_clock::now();
  REQUIRE(t.num_gpus() == 16384);
  std::mt19937 rng(1);
  std::uniform_int_distribution<uint32_t> pick(0, 16383);
  size_t links = 0;
  const std::clock_t c1 = std::clock();
  for (int i = 0; i < 100000; ++i) {
    GpuId a(pick(rng)), b(pick(rng));
    links += t.route(a, b).size();
  }
  const std::clock_t c2 = std::clock();
  auto t2 = std::chrono::steady_clock::now();
  const double build_s = std::chrono::duration<double>(t1 - t0).count();
  const double route_s = std::chrono::duration<double>(t2 - t1).count();
  const double route_cpu_s = static_cast<double>(c2 - c1) / CLOCKS_PER_SEC;
  WARN("16,384 GPUs, " << t.nodes().size() << " nodes, " << t.links().size() << " links: build " << build_s
                       << " s; 100,000 random routes: " << route_cpu_s << " s CPU (" << route_cpu_s * 1e6 / 100000
                       << " us/route), " << route_s << " s wall; mean " << static_cast<double>(links) / 100000 << " links");
  CHECK(route_cpu_s < 1.0);
}

TEST_CASE("router: switch and NIC endpoints, and the plain-BFS fallback for server-to-server cables", "[topo][route]") {
  Topology t = build_cluster(h100_fat_tree3(80));
  NodeId leaf0, spine40, nic;
  for (const Node& n : t.nodes()) {
    if (n.name == "leaf0") leaf0 = n.id;
    if (n.name == "spine40") spine40 = n.id;
    if (n.name == "n70.nic3") nic = n.id;
  }
  REQUIRE((leaf0.valid() && spine40.valid() && nic.valid()));
  for (auto [a, b] : {std::pair{leaf0, spine40}, {spine40, leaf0}, {leaf0, t.gpu_node(GpuId(600))}, {nic, t.gpu_node(GpuId(1))},
                      {t.gpu_node(GpuId(5)), nic}}) {
    INFO(t.node(a).name << " -> " << t.node(b).name);
    CHECK(static_cast<int>(t.route(a, b).size()) == bfs_hops(t, a, b));
  }
  // Two servers cabled NIC to NIC with no switch: islands joined directly, so routing falls back to BFS.
  ClusterSpec s = h100_cluster(2);
  s.extra_links.push_back(ExtraLink{"n0.nic0", "n1.nic0", {}, {}, LinkKind::ethernet, Gbps(100), Time::us(1), true});
  Topology d = build_cluster(s);
  CHECK(route_names(d, GpuId(0), GpuId(8)) ==
        std::vector<std::string>{"n0.gpu0", "n0.pcie0", "n0.nic0", "n1.nic0", "n1.pcie0", "n1.gpu0"});
  CHECK(static_cast<int>(d.route(GpuId(3), GpuId(12)).size()) == bfs_hops(d, d.gpu_node(GpuId(3)), d.gpu_node(GpuId(12))));
}

TEST_CASE("router: GPUs of one server talk over NVLink even when a PCIe path has as few hops", "[topo][route]") {
  // Every pair of GPUs in a DGX has two 2-hop paths: GPU -> NVSwitch -> GPU and, for GPUs sharing a
  // PCIe switch, GPU -> PCIe switch -> GPU. NCCL uses NVLink; so must the route, for every pair.
  Topology t = build_cluster(h100_cluster(1));
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      for (LinkId l : t.route(gpu(0, a), gpu(0, b))) CHECK(t.link(l).kind == LinkKind::nvlink);
    }
}

TEST_CASE("router: fabric distance tables built 64 at a time give the same routes in any order of asking", "[topo][route]") {
  // Router::build_tables fills the table a route needs and up to 63 others in one bit-parallel BFS;
  // which ones share a batch depends on which destination is asked first. Two copies of each fabric,
  // one routed destinations ascending and the other descending, must give every route link for
  // link, each the fewest hops a plain BFS finds.
  for (const LoadBalance lb : {LoadBalance::destination, LoadBalance::flow_hash}) {
    ClusterSpec s = h100_fat_tree3(80);  // 20 leaves in 2 pods: tables for leaves, and more than one batch of NICs
    s.fabric.load_balance = lb;
    const Topology up = build_cluster(s), down = build_cluster(s);
    const auto n = static_cast<uint32_t>(up.num_gpus());
    std::vector<std::vector<LinkId>> forward;
    for (uint32_t b = 0; b < n; ++b)
      for (const uint32_t a : {0U, 9U, 333U, n - 1})
        if (a != b) forward.emplace_back(up.route(GpuId(a), GpuId(b)).begin(), up.route(GpuId(a), GpuId(b)).end());
    size_t i = forward.size();
    for (uint32_t b = n; b-- > 0;)
      for (const uint32_t a : {n - 1, 333U, 9U, 0U})
        if (a != b) {
          const auto r = down.route(GpuId(a), GpuId(b));
          REQUIRE(i > 0);
          CHECK(std::vector<LinkId>(r.begin(), r.end()) == forward[--i]);
          CHECK(static_cast<int>(r.size()) == bfs_hops(down, down.gpu_node(GpuId(a)), down.gpu_node(GpuId(b))));
        }
    CHECK(i == 0);
  }
}
