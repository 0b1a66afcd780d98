#pragma once
// io-internal: the parts of the topology reader that live in topology_yaml_fabric.cpp.
#include "sim/io/yaml_reader.hpp"
#include "sim/topo/cluster_spec.hpp"

namespace plansim::io {

// `fabric` may be a null node (no fabric); `root` positions errors about its absence.
FabricSpec read_fabric(const YamlFile& file, const YAML::Node& fabric, const YAML::Node& root, const NicSpec& nics);
void read_extra(const YamlFile& file, const YAML::Node& extra, ClusterSpec& spec);

}  // namespace plansim::io
