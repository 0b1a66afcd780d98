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
