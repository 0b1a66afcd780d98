// Which protocols NCCL enables by default (sim/coll/nccl_model.hpp protocol_on_by_default): LL128 only
// when the group's intra-server steps run over NVLink (tuning.cc: typeIntra <= PATH_NVB).
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/selection.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
// n GPUs on one server, each on its own PCIe link to one CPU (no NVLink).
Topology pcie_topology(int n) {
  TopologyBuilder b("pcie" + std::to_string(n));
  b.set_num_hosts(1);
  NodeId cpu = b.add_node(NodeKind::cpu, "cpu", 0);
  for (int i = 0; i < n; ++i) {
    NodeId g = b.add_node(NodeKind::gpu, "gpu" + std::to_string(i), 0, i);
    b.add_duplex(g, cpu, LinkKind::pcie, GBps(25), Time::ns(500));
  }
  return std::move(b).build();
}
}  // namespace

TEST_CASE("protocols: LL128 is on by default over NVLink only", "[coll]") {
  CHECK(protocol_on_by_default(Protocol::ll128, HwKind::nvlink));
  CHECK_FALSE(protocol_on_by_default(Protocol::ll128, HwKind::pci));
  for (HwKind k : {HwKind::nvlink, HwKind::pci}) {
    CHECK(protocol_on_by_default(Protocol::ll, k));
    CHECK(protocol_on_by_default(Protocol::simple, k));
  }
}

TEST_CASE("protocols: auto never picks LL128 on a PCIe-only server, and may on NVLink", "[coll]") {
  const AlgorithmRegistry reg = make_default_registry();
  const NcclModelParams m;
  const Topology pcie = pcie_topology(4);
  CHECK(intra_hw_kind(pcie, test::first_gpus(4)) == HwKind::pci);
  bool nvlink_ll128 = false;
  const Topology nv = test::cluster_topology(1, 4);
  for (double s = 1024; s <= 1024.0 * 1048576; s *= 4) {
    const CollectiveCall c{CollOp::all_reduce, test::first_gpus(4), Bytes(s), 0, "auto", "auto"};
    CHECK(choose_collective(reg, m, pcie, c).protocol != Protocol::ll128);
    nvlink_ll128 = nvlink_ll128 || choose_collective(reg, m, nv, c).protocol == Protocol::ll128;
  }
  CHECK(nvlink_ll128);
  // Asked for by name (NCCL_PROTO=LL128), it still runs.
  const CollectiveCall forced{CollOp::all_reduce, test::first_gpus(4), Bytes(1 << 20), 0, "ring", "LL128"};
  CHECK(choose_collective(reg, m, pcie, forced).protocol == Protocol::ll128);
}
