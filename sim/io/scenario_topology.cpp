#include "sim/io/scenario_topology.hpp"

#include "sim/io/topology_loader.hpp"
#include "sim/io/topology_yaml.hpp"

namespace plansim::io {

Topology scenario_topology(const YamlFile& file, const YAML::Node& value, std::optional<int> nodes) {
  if (value.IsMap()) return read_topology(file, value, nodes);
  if (!value.IsScalar()) file.fail(value, "'topology' must be a file path or a mapping");
  std::filesystem::path path = value.Scalar();
  if (path.is_relative()) path = file.directory() / path;
  if (!std::filesystem::exists(path))
    file.fail(value, "topology file '" + path.string() + "' does not exist (paths are relative to the scenario)");
  return load_topology(path, nodes);
}

}  // namespace plansim::io
