#pragma once
// Loads a topology YAML file (schema: README.md, "Topology YAML") into a Topology graph.
// Bad input throws ConfigError with file:line:col.
#include <filesystem>
#include <optional>
#include <string>

#include "sim/topo/topology.hpp"

namespace plansim {

// `nodes`, when given, overrides the number of servers the file declares.
Topology load_topology(const std::filesystem::path& file, std::optional<int> nodes = {});
// The same from text (`name` stands for the file in messages): fuzzing and tests.
Topology parse_topology(const std::string& text, const std::string& name, std::optional<int> nodes = {});

}  // namespace plansim
