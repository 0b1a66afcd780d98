// `servers_per_domain`: a job placed on N servers of each NVLink domain (io/scenario_topology.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"

using namespace plansim;

namespace {
const std::string kJob = std::string(PLANSIM_SOURCE_DIR) + "/tests/data/placement/gb200-256.yaml";

int island_of(const Topology& t, int gpu) { return t.island(t.gpu_node(GpuId::from(gpu))); }

std::string error_of(const std::vector<std::string>& overrides) {
  try {
    (void)load_scenario(kJob, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}
}  // namespace

TEST_CASE("placement: a job on 16 trays of each NVL72 rack sees NVLink domains of 64 GPUs", "[io][scenario]") {
  // As the rack is (18 trays of 4 GPUs): GPUs 0-71 share the first domain, so ranks 63 and 64 do too.
  const Topology racks = load_scenario(kJob).topology;
  CHECK(island_of(racks, 63) == island_of(racks, 64));
  CHECK(island_of(racks, 71) != island_of(racks, 72));
  // Placed on 16 trays per rack (a scheduler's segment of 16 for power-of-two jobs): 64 GPUs per domain.
  const Topology placed = load_scenario(kJob, {"servers_per_domain=16"}).topology;
  CHECK(placed.num_gpus() == 256);
  CHECK(placed.num_islands() == 4);
  for (int d = 0; d < 4; ++d) {
    CHECK(island_of(placed, 64 * d) == island_of(placed, 64 * d + 63));
    if (d > 0) CHECK(island_of(placed, 64 * d) != island_of(placed, 64 * d - 1));
  }
  // The whole domain is the default: 18 is the same as no key.
  const Topology whole = load_scenario(kJob, {"servers_per_domain=18"}).topology;
  CHECK(whole.num_islands() == racks.num_islands());
  CHECK(island_of(whole, 63) == island_of(whole, 64));
  // The unit a hierarchical MoE dispatcher crosses the fabric by: the NVLink domain, not the tray.
  CHECK(racks.gpus_per_island() == 72);  // 72, 72, 72 and the last rack's 40
  CHECK(placed.gpus_per_island() == 64);
  CHECK(load_scenario(kJob, {"servers_per_domain=16"}).scenario.parallel.domain_gpus == 64);
  CHECK(load_scenario(kJob, {"topology=../../../topologies/dgx-h100.yaml", "nodes=32"}).scenario.parallel.domain_gpus == 8);
}

TEST_CASE("placement: each rack's rail leaves serve the job's trays of that rack", "[io][scenario]") {
  // gb200-nvl72's rail leaves serve one rack's 18 trays each. Placed on 16 trays per rack, the leaves of a
  // rack serve its 16 trays, not 16 of them and 2 of the next rack.
  auto leaf_of = [](const Topology& t, int gpu) {
    const NodeId nic = t.node(t.gpu_node(GpuId::from(gpu))).nic;
    for (LinkId l : t.out_links(nic))
      if (t.node(t.link(l).dst).kind == NodeKind::leaf_switch) return t.link(l).dst;
    return NodeId{};
  };
  const Topology placed = load_scenario(kJob, {"servers_per_domain=16"}).topology;
  CHECK(leaf_of(placed, 0) == leaf_of(placed, 60));  // trays 0 and 15, rail 0: the first rack's leaf
  CHECK(leaf_of(placed, 0) != leaf_of(placed, 64));  // tray 16, the second rack's first tray
  CHECK(leaf_of(placed, 64) == leaf_of(placed, 124));
  const Topology racks = load_scenario(kJob).topology;  // 18 trays per rack: tray 16 is the first rack's
  CHECK(leaf_of(racks, 0) == leaf_of(racks, 64));
  CHECK(leaf_of(racks, 0) != leaf_of(racks, 72));
}

TEST_CASE("placement errors: servers_per_domain out of the domain, or on single-server domains", "[io][scenario][errors]") {
  CHECK(error_of({"servers_per_domain=0"}) ==
        "--set servers_per_domain=0: 'servers_per_domain' must be a whole number from 1 to 18 (the servers of one "
        "NVLink domain of topology 'gb200-nvl72')");
  CHECK(error_of({"servers_per_domain=19"}).find("from 1 to 18") != std::string::npos);
  CHECK(error_of({"servers_per_domain=[16]"}).find("from 1 to 18") != std::string::npos);
  CHECK(error_of({"topology=../../../topologies/dgx-h100.yaml", "nodes=32", "servers_per_domain=4"}) ==
        "--set servers_per_domain=4: 'servers_per_domain' places a job on NVLink domains that span servers; topology "
        "'dgx-h100' has one server per NVLink domain (nvswitch.domain_servers)");
}
