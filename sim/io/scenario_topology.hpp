#pragma once
// io-internal: resolves a scenario's `topology` value (a path relative to the scenario file, or an
// inline mapping) into a Topology with `nodes` nodes (nullopt: as the file says), placed as the
// scenario's `servers_per_domain` says (README "Scenario YAML").
#include <optional>

#include "sim/io/yaml_reader.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::io {

// `servers_per_domain`: the scenario's key (undefined: none). A job placed on N servers of each NVLink
// domain (a scheduler's block or segment size, e.g. 16 trays of a GB200 NVL72 rack for power-of-two jobs)
// sees domains of N servers: its ranks fill N servers of one domain before the next. ConfigError at the
// key when the topology has no multi-server NVLink domains or N is not 1 … the domain's servers.
Topology scenario_topology(const YamlFile& file, const YAML::Node& value, std::optional<int> nodes,
                           const YAML::Node& servers_per_domain = YAML::Node());

}  // namespace plansim::io
