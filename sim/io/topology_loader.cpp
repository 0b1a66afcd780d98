#include "sim/io/topology_loader.hpp"

#include "sim/io/topology_yaml.hpp"

namespace plansim {

Topology load_topology(const std::filesystem::path& file, std::optional<int> nodes) {
  const io::YamlFile yaml = io::YamlFile::load(file);
  return io::read_topology(yaml, yaml.root(), nodes);
}

Topology parse_topology(const std::string& text, const std::string& name, std::optional<int> nodes) {
  const io::YamlFile yaml = io::YamlFile::parse(text, name);
  return io::read_topology(yaml, yaml.root(), nodes);
}

}  // namespace plansim
