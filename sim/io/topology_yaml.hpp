#pragma once
// io-internal: a topology mapping (a topology file's root, or a topology written inline in a
// scenario) -> Topology. Only sim/io/*.cpp include this header (it exposes yaml-cpp types).
// Every malformed input throws ConfigError at the offending value's file:line:col. Schema: README.md,
// "Topology YAML".
#include <optional>

#include "sim/io/yaml_reader.hpp"
#include "sim/topo/cluster_spec.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::io {

// `nodes`, when given, overrides the file's server count.
Topology read_topology(const YamlFile& file, const YAML::Node& node, std::optional<int> nodes);
// The validated parameters, before the graph is built (for tools and tests).
ClusterSpec read_cluster_spec(const YamlFile& file, const YAML::Node& node, std::optional<int> nodes);

}  // namespace plansim::io
