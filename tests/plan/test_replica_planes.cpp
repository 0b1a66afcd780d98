// TP folding's network planes (plan/replica_planes.hpp): the renaming of replica 0's links onto
// replica j's must be a one-to-one map onto links of equal bandwidth that no other replica uses.
#include <catch2/catch.hpp>

#include "sim/plan/replica_planes.hpp"
#include "tests/support/cluster.hpp"

using namespace plansim;

namespace {
// The first link of the route a -> b (GPU to NVSwitch, or GPU to PCIe switch on the way to a NIC).
LinkId first_link(const Topology& t, int a, int b) { return t.route(GpuId::from(a), GpuId::from(b)).front(); }
}  // namespace

TEST_CASE("replica planes: consistent renamings are accepted, contradictions are not", "[plan][symmetry]") {
  const Topology t = testing::make_cluster(2, 4);
  // GPU g's NVLink to the switch: distinct links of equal bandwidth for g = 0..3.
  const LinkId g0 = first_link(t, 0, 1), g1 = first_link(t, 1, 0), g2 = first_link(t, 2, 0), g3 = first_link(t, 3, 0);
  {
    ReplicaPlanes p(t, 4);
    CHECK(p.pair(1, g0, g1));
    CHECK(p.pair(1, g0, g1));  // seen before: still fine
    CHECK(p.pair(2, g0, g2));
    CHECK(p.pair(3, g0, g3));
    // Replica 0 may not use a link replica 1 uses.
    CHECK_FALSE(p.pair(2, g1, g3));
    CHECK(p.why().find("carries replicas 0 and 1") != std::string::npos);
  }
  {
    ReplicaPlanes p(t, 2);
    CHECK(p.pair(1, g0, g1));
    CHECK_FALSE(p.pair(1, g0, g2));  // φ would not be a function
    CHECK(p.why().find("uses both") != std::string::npos);
  }
  {
    ReplicaPlanes p(t, 2);
    CHECK(p.pair(1, g0, g2));
    CHECK_FALSE(p.pair(1, g1, g2));  // two replica-0 links onto one
  }
  {
    ReplicaPlanes p(t, 3);
    CHECK_FALSE(p.pair(1, g0, g0));  // a link both replicas use
    CHECK(p.pair(1, g0, g1));        // nothing was recorded by the refusal
    CHECK_FALSE(p.pair(2, g2, g1));  // replica 1's link taken by replica 2
  }
  {
    // An NVLink (300 GB/s here) renamed onto the NIC path's first link (PCIe): bandwidths differ.
    ReplicaPlanes p(t, 2);
    const LinkId pcie = first_link(t, 1, 5);
    REQUIRE(t.link(pcie).bandwidth != t.link(g0).bandwidth);
    CHECK_FALSE(p.pair(1, g0, pcie));
    CHECK(p.why().find("not as fast") != std::string::npos);
  }
}

TEST_CASE("replica planes: a spanning flow is projected only when it loads every plane alike", "[plan][symmetry]") {
  const Topology t = testing::make_cluster(2, 4);
  const LinkId g0 = first_link(t, 0, 1), g1 = first_link(t, 1, 0), g2 = first_link(t, 2, 0), g3 = first_link(t, 3, 0);
  const LinkId nic = first_link(t, 0, 5);  // GPU 0's first link towards the other server: in no plane
  {
    ReplicaPlanes p(t, 2);
    REQUIRE(p.pair(1, g0, g1));
    std::vector<LinkId> kept;
    // Crosses replica 0's link and its image once each, and a link outside the planes: the image
    // (the same constraint as g0 by symmetry) is dropped, the rest kept in order.
    const std::vector<LinkId> flow{g1, nic, g2, g0};
    REQUIRE(p.project(flow, kept));
    CHECK(kept == std::vector<LinkId>{nic, g2, g0});
    // Once a spanning flow crossed g2 outside every plane, it may not join one.
    CHECK_FALSE(p.pair(1, g3, g2));
    CHECK(p.why().find("after a transfer spanning the replicas") != std::string::npos);
  }
  {
    ReplicaPlanes p(t, 2);
    REQUIRE(p.pair(1, g0, g1));
    std::vector<LinkId> kept;
    CHECK_FALSE(p.project(std::vector<LinkId>{g0}, kept));  // loads replica 0's plane, not replica 1's
    CHECK(p.why().find("0 times") != std::string::npos);
    CHECK_FALSE(p.project(std::vector<LinkId>{g0, g0, g1}, kept));  // twice against once
  }
  {
    ReplicaPlanes p(t, 3);
    REQUIRE(p.pair(1, g0, g1));
    std::vector<LinkId> kept;
    // Replica 2 has no image of g0 yet: its load on g0's constraint is unknown.
    CHECK_FALSE(p.project(std::vector<LinkId>{g0, g1}, kept));
    CHECK(p.why().find("no image") != std::string::npos);
    REQUIRE(p.pair(2, g0, g3));
    CHECK(p.project(std::vector<LinkId>{g3, g0, g1}, kept));
    CHECK(kept == std::vector<LinkId>{g0});
  }
}
