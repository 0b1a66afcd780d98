#pragma once
// io-internal: resolves a scenario's `topology` value (a path relative to the scenario file, or an
// inline mapping) into a Topology with `nodes` nodes (nullopt: as the file says).
#include <optional>

#include "sim/io/yaml_reader.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::io {

Topology scenario_topology(const YamlFile& file, const YAML::Node& value, std::optional<int> nodes);

}  // namespace plansim::io
