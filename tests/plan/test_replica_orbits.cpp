// DP folding's replica orbits (plan/replica_orbits.hpp): every replica's links paired with the next
// replica's must form one permutation π of equal-bandwidth links; the quotient lists each replica-0
// link's orbit representative R/|orbit| times, and a spanning flow is kept only where π maps it onto
// itself.
#include <catch2/catch.hpp>

#include "sim/plan/replica_orbits.hpp"
#include "tests/support/cluster.hpp"

using namespace plansim;

namespace {
// The first link of the route a -> b (GPU to NVSwitch).
LinkId first_link(const Topology& t, int a, int b) { return t.route(GpuId::from(a), GpuId::from(b)).front(); }
}  // namespace

TEST_CASE("replica orbits: a cyclic renaming with a shared link gives its quotient", "[plan][symmetry]") {
  const Topology t = testing::make_cluster(2, 4);
  const LinkId g0 = first_link(t, 0, 1), g1 = first_link(t, 1, 0), g2 = first_link(t, 2, 0), g3 = first_link(t, 3, 0);
  // 4 replicas: replica j's flow crosses its own link g_j and the link s_{j mod 2}, which replicas j
  // and j+2 share (the s_k are the other server's GPU links).
  const LinkId s0 = first_link(t, 4, 5), s1 = first_link(t, 5, 4);
  ReplicaOrbits o(t, 4);
  const LinkId own[4] = {g0, g1, g2, g3};
  const LinkId shared[2] = {s0, s1};
  for (int j = 0; j < 4; ++j) {
    CHECK(o.pair(j, own[j], own[(j + 1) % 4]));
    CHECK(o.pair(j, shared[j % 2], shared[(j + 1) % 2]));
  }
  std::vector<LinkId> q;
  REQUIRE(o.quotient(std::vector<LinkId>{g0, s0}, q));
  // g0's orbit has 4 links (one per replica): once; s0's has 2 (shared by 2 replicas each): twice.
  CHECK(q == std::vector<LinkId>{g0, s0, s0});
  CHECK(o.shared_orbits() == 1);
  // A spanning flow over every own link and both shared ones maps onto itself: kept on the
  // representatives (g0, s0) and its links outside D.
  const LinkId nic = first_link(t, 0, 5);
  std::vector<LinkId> kept;
  CHECK(o.project(std::vector<LinkId>{g0, g1, g2, g3, s0, s1, nic}, kept));
  CHECK(kept == std::vector<LinkId>{g0, s0, nic});
  // One that misses an image does not.
  CHECK_FALSE(o.project(std::vector<LinkId>{g0, g1, s0}, kept));
  CHECK(o.why().find("image") != std::string::npos);
  // Once final, π may not grow.
  CHECK_FALSE(o.pair(0, nic, g0));
}

TEST_CASE("replica orbits: contradictions are refused", "[plan][symmetry]") {
  const Topology t = testing::make_cluster(2, 4);
  const LinkId g0 = first_link(t, 0, 1), g1 = first_link(t, 1, 0), g2 = first_link(t, 2, 0);
  {
    ReplicaOrbits o(t, 2);
    CHECK(o.pair(0, g0, g1));
    CHECK(o.pair(0, g0, g1));        // seen before: fine
    CHECK_FALSE(o.pair(1, g0, g2));  // π would not be a function
    CHECK(o.why().find("followed by both") != std::string::npos);
    CHECK_FALSE(o.pair(1, g2, g1));  // nor one to one
    CHECK(o.why().find("follows both") != std::string::npos);
  }
  {
    ReplicaOrbits o(t, 2);
    const LinkId pcie = first_link(t, 1, 5);  // towards the NIC: PCIe, slower than NVLink here
    REQUIRE(t.link(pcie).bandwidth != t.link(g0).bandwidth);
    CHECK_FALSE(o.pair(0, g0, pcie));
    CHECK(o.why().find("not as fast") != std::string::npos);
  }
  {
    // Before π is complete, a spanning flow that already loads a link and its known image unequally
    // is refused (precheck); links without a known image are not judged yet.
    ReplicaOrbits o(t, 2);
    CHECK(o.pair(0, g0, g1));
    CHECK(o.precheck(std::vector<LinkId>{g2}));
    CHECK_FALSE(o.precheck(std::vector<LinkId>{g0, g0, g1}));
  }
}

TEST_CASE("replica orbits: an all-to-all spanning the replicas keeps one flow per flow orbit", "[plan][symmetry]") {
  const Topology t = testing::make_cluster(2, 4);
  auto route = [&](int a, int b) {
    const auto r = t.route(GpuId::from(a), GpuId::from(b));
    return std::vector<LinkId>(r.begin(), r.end());
  };
  auto out = [&](int g) { return route(g, (g + 1) % 4).front(); };  // GPU g to its NVSwitch
  auto in = [&](int g) { return route((g + 1) % 4, g).back(); };    // the NVSwitch to GPU g
  // Replica j is GPU j of server 0; π shifts GPU j's links onto GPU j+1's (mod 4).
  ReplicaOrbits o(t, 4);
  for (int j = 0; j < 4; ++j) {
    REQUIRE(o.pair(j, out(j), out((j + 1) % 4)));
    REQUIRE(o.pair(j, in(j), in((j + 1) % 4)));
  }
  // The all-to-all over the 4 GPUs: a flow i -> j for each ordered pair; π maps it onto (i+1) -> (j+1).
  std::vector<std::vector<LinkId>> routes;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      if (i != j) routes.push_back(route(i, j));
  auto shapes = [&](size_t skip) {
    std::vector<CollectiveRunner::FlowShape> s;
    for (size_t f = 0; f < routes.size(); ++f)
      if (f != skip) s.push_back({routes[f], Bytes(1e6), Time::us(2), Rate(1e11)});
    return s;
  };
  const auto all = shapes(routes.size());
  CHECK(o.precheck_phase(all));
  CollectiveRunner::FlowRewrite rewrite;
  REQUIRE(o.project_phase(all, rewrite));
  // Three orbits of 4 flows (j − i = 1, 2, 3): each kept once, on the representatives of GPU 0's out
  // and in orbits, k/|O| = 4/4 times per crossing; the other 9 dropped.
  int kept = 0;
  for (const auto& r : rewrite) {
    if (!r) continue;
    ++kept;
    CHECK(*r == std::vector<LinkId>{out(0), in(0)});
  }
  CHECK(kept == 3);
  // Without the flow 3 -> 0, the image of 2 -> 3 is no flow of the phase.
  const size_t three_to_zero = 9;
  REQUIRE(routes[three_to_zero] == route(3, 0));
  const auto missing = shapes(three_to_zero);
  CHECK_FALSE(o.precheck_phase(missing));
  CHECK_FALSE(o.project_phase(missing, rewrite));
  CHECK(o.why().find("image") != std::string::npos);
}
