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
