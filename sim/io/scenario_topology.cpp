#include "sim/io/scenario_topology.hpp"

namespace plansim::io {

// The topology loader lives on the `topo` branch; until it is merged, a scenario can only be
// loaded with an explicit TopologyFactory (parse_scenario).
Topology scenario_topology(const YamlFile& file, const YAML::Node& value, std::optional<int> /*nodes*/) {
  file.fail(value, "loading a topology from a scenario needs the topology loader (not in this build yet)");
}

}  // namespace plansim::io
