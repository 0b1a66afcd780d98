// PXN (pxn.hpp): NCCL's point-to-point route between servers. A cross-rail send of an all-to-all goes over
// NVLink to the rank owning the NIC on the destination's rail and out through that NIC (no spine hop on a
// rail-optimized fabric); a same-rail send, a send inside a server, a relay that is not a rank of the group
// or not reachable over NVLink go straight. The plan's per-link bytes are the schedule's over those routes.
#include <catch2/catch.hpp>

#include <string>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/pxn.hpp"
#include "sim/io/topology_loader.hpp"

using namespace plansim;

namespace {
// Two servers of 4 GPUs, NIC i of each on rail leaf i; `up` links per leaf to the spines (4 = 1:1, 1 = 4:1).
Topology rails(int up) {
  const std::string yaml = R"(name: rails
nodes: 2
node:
  gpu: H100-SXM-80GB
  gpus: 4
  nvswitch: {bandwidth: 450 GB/s, latency: 0.25 us}
  pcie: {generation: 5, lanes: 16, gpus_per_switch: 1, cpus: 1, p2p: true, latency: 0.5 us}
  nics: {count: 4, kind: infiniband, bandwidth: 400 Gb/s, latency: 0.5 us}
fabric:
  kind: rail_optimized
  latency: 0.3 us
  leaf: {down_ports: 2, up_links: )" + std::to_string(up) + R"(}
  spine: {count: 2}
)";
  return parse_topology(yaml, "rails.yaml");
}
std::vector<GpuId> gpus(std::initializer_list<int> ids) {
  std::vector<GpuId> v;
  for (int i : ids) v.push_back(GpuId::from(static_cast<size_t>(i)));
  return v;
}
bool crosses_spine(const Topology& topo, const std::vector<LinkId>& links) {
  for (LinkId l : links)
    if (topo.node(topo.link(l).src).kind == NodeKind::spine_switch || topo.node(topo.link(l).dst).kind == NodeKind::spine_switch)
      return true;
  return false;
}
}  // namespace

TEST_CASE("pxn: a cross-rail send is relayed by the rank owning the destination's rail NIC", "[coll]") {
  const Topology topo = rails(4);
  const auto all = gpus({0, 1, 2, 3, 4, 5, 6, 7});
  const PxnRelays relays(topo, all);
  for (int i = 0; i < 8; ++i) CHECK(nic_index(topo, GpuId::from(static_cast<size_t>(i))) == i % 4);
  // GPU 0 (server 0, rail 0) -> GPU 5 (server 1, rail 1): through GPU 1, server 0's rail-1 NIC.
  CHECK(relays.relay(GpuId::from(0), GpuId::from(5)) == GpuId::from(1));
  CHECK(relays.relay(GpuId::from(0), GpuId::from(4)) == GpuId::from(0));  // same rail
  CHECK(relays.relay(GpuId::from(0), GpuId::from(2)) == GpuId::from(0));  // same server
  // The relay must be a rank of the group: without GPU 1 the send goes straight.
  CHECK(PxnRelays(topo, gpus({0, 4, 5})).relay(GpuId::from(0), GpuId::from(5)) == GpuId::from(0));

  std::vector<LinkId> straight, relayed;
  append_route(topo, GpuId::from(0), GpuId::from(5), straight);
  const Time lat = append_p2p_route(topo, GpuId::from(0), GpuId::from(1), GpuId::from(5), relayed);
  CHECK(crosses_spine(topo, straight));
  CHECK_FALSE(crosses_spine(topo, relayed));
  CHECK(lat == route_latency(topo, GpuId::from(0), GpuId::from(1)) + route_latency(topo, GpuId::from(1), GpuId::from(5)));
  // The relayed route's first leg is NVLink, and it leaves server 0 through GPU 1's NIC.
  CHECK(topo.link(relayed.front()).kind == LinkKind::nvlink);
  bool via_nic1 = false;
  for (LinkId l : relayed) via_nic1 = via_nic1 || topo.link(l).src == topo.node(topo.gpu_node(GpuId::from(1))).nic;
  CHECK(via_nic1);
}

TEST_CASE("pxn: the all-to-all plan moves the schedule's bytes over the relayed routes, none over the spines",
          "[coll]") {
  const AlgorithmRegistry reg = make_default_registry();
  const CollectiveAlgorithm& direct = *reg.find("direct");
  const Topology topo = rails(4);
  const auto ranks = gpus({0, 1, 2, 3, 4, 5, 6, 7});
  const Bytes S = MB(8.0);
  const FlowPlan plan = direct.lower(LoweringContext{&topo, CollOp::all_to_all, ranks, S, 0, 1});
  const PxnRelays relays(topo, ranks);
  const auto want = schedule_link_bytes(direct.expand(CollOp::all_to_all, GroupShape::flat(8)), topo, ranks, S, &relays);
  const auto got = plan.link_bytes(topo.links().size());
  for (size_t l = 0; l < got.size(); ++l) {
    INFO("link " << l);
    CHECK(got[l] == Approx(want[l]).margin(1e-3));
    const Link& k = topo.links()[l];
    if (topo.node(k.src).kind == NodeKind::spine_switch || topo.node(k.dst).kind == NodeKind::spine_switch) CHECK(got[l] == 0);
  }
  // Each server's NICs still carry half of its ranks' data out (the other server's share), whatever the route.
  const auto without = schedule_link_bytes(direct.expand(CollOp::all_to_all, GroupShape::flat(8)), topo, ranks, S);
  double nic_with = 0, nic_without = 0;
  for (size_t l = 0; l < got.size(); ++l)
    if (topo.node(topo.links()[l].src).kind == NodeKind::nic) {
      nic_with += got[l];
      nic_without += without[l];
    }
  CHECK(nic_with == Approx(nic_without));
}

TEST_CASE("pxn: on a 4:1 oversubscribed rail fabric the relayed all-to-all is faster than the straight one", "[coll]") {
  const AlgorithmRegistry reg = make_default_registry();
  const CollectiveAlgorithm& direct = *reg.find("direct");
  const NcclModelParams m = NcclModelParams::ideal();
  const auto ranks = gpus({0, 1, 2, 3, 4, 5, 6, 7});
  const Bytes S = GB(1.0);
  for (int up : {1, 4}) {
    const Topology topo = rails(up);
    const FlowPlan relayed = direct.lower(LoweringContext{&topo, CollOp::all_to_all, ranks, S, 0, 1});
    const FlowPlan straight = lower_steps(direct.expand(CollOp::all_to_all, GroupShape::flat(8)), topo, ranks, S);
    const double t_relayed = predict_time(m, LatencyClass::ring, Protocol::simple, relayed, topo, HwKind::nvlink).seconds();
    const double t_straight = predict_time(m, LatencyClass::ring, Protocol::simple, straight, topo, HwKind::nvlink).seconds();
    INFO(up << " up-links per leaf: relayed " << t_relayed << " s, straight " << t_straight << " s");
    // Every rank sends S/8 to each of the 4 ranks of the other server: S/2 through the NICs of its server's
    // rail (50 GB/s each) with PXN, the bound of both routes on a 1:1 fabric.
    CHECK(t_relayed == Approx(0.5 * S.value() / 50e9).epsilon(0.02));
    if (up == 4) CHECK(t_straight == Approx(t_relayed).epsilon(0.02));
    else CHECK(t_straight == Approx(1.5 * t_relayed).epsilon(0.02));  // each leaf sends 3 S / 4 over one 50 GB/s up-link
  }
}

TEST_CASE("pxn and pat: an NVL72 rack is one node (NCCL's MNNVL): no relay inside it, no PAT across its trays", "[coll]") {
  const Topology nvl = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/gb200-nvl72.yaml", 36);
  // GPU 0 (tray 0, NIC 0) -> GPU 5 (tray 1, NIC 1), same rack: straight over NVLink; -> GPU 73 (rack 2, NIC 1): relayed
  // by GPU 1, tray 0's NIC-1 owner.
  const auto ranks = gpus({0, 1, 5, 73});
  const PxnRelays relays(nvl, ranks);
  CHECK(relays.relay(GpuId::from(0), GpuId::from(5)) == GpuId::from(0));
  CHECK(relays.relay(GpuId::from(0), GpuId::from(73)) == GpuId::from(1));
  // One GPU per tray of one rack is one NCCL node: PAT does not apply; one per rack does.
  const AlgorithmRegistry reg = make_default_registry();
  CHECK_FALSE(reg.find("pat")->applicable(CollOp::all_gather, nvl, gpus({0, 4, 8, 12})));
  CHECK(reg.find("pat")->applicable(CollOp::all_gather, nvl, gpus({0, 72})));
}
