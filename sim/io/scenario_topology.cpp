#include "sim/io/scenario_topology.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "sim/io/topology_yaml.hpp"

namespace plansim::io {

namespace {

// The servers of each NVLink domain the job fills, checked against the topology's domains.
void place_on_domains(const YamlFile& file, const YAML::Node& key, ClusterSpec& spec) {
  if (!key || key.IsNull()) return;
  const int domain = spec.node.nvswitch ? spec.node.nvswitch->domain_servers : 1;
  if (domain <= 1)
    file.fail(key, fmt::format("'servers_per_domain' places a job on NVLink domains that span servers; topology '{}' has "
                               "one server per NVLink domain (nvswitch.domain_servers)",
                               spec.name));
  int n = 0;
  if (!key.IsScalar() || !YAML::convert<int>::decode(key, n) || n < 1 || n > domain)
    file.fail(key, fmt::format("'servers_per_domain' must be a whole number from 1 to {} (the servers of one NVLink "
                               "domain of topology '{}')",
                               domain, spec.name));
  spec.node.nvswitch->domain_servers = n;
  // A leaf that serves whole domains (a rack's trays on each rail's leaf) serves the job's n servers of
  // each of them: the domains it serves stay its own, rather than the leaf taking the next domain's first
  // servers in their place.
  FabricSpec& f = spec.fabric;
  const int ports_per_server = f.kind == FabricKind::rail_optimized ? 1 : spec.node.nics.count;
  const bool leaves = f.kind == FabricKind::rail_optimized || f.kind == FabricKind::fat_tree;
  if (leaves && ports_per_server > 0 && f.leaf_down_ports > 0 && f.leaf_down_ports % (domain * ports_per_server) == 0)
    f.leaf_down_ports = f.leaf_down_ports / domain * n;
}

}  // namespace

Topology scenario_topology(const YamlFile& file, const YAML::Node& value, std::optional<int> nodes,
                           const YAML::Node& servers_per_domain) {
  std::optional<YamlFile> topology_file;  // a path: the topology's own file, for its errors' positions
  if (!value.IsMap()) {
    if (!value.IsScalar()) file.fail(value, "'topology' must be a file path or a mapping");
    std::filesystem::path path = value.Scalar();
    if (path.is_relative()) path = file.directory() / path;
    if (!std::filesystem::exists(path))
      file.fail(value, "topology file '" + path.string() + "' does not exist (paths are relative to the scenario)");
    topology_file.emplace(YamlFile::load(path));
  }
  ClusterSpec spec = topology_file ? read_cluster_spec(*topology_file, topology_file->root(), nodes)
                                   : read_cluster_spec(file, value, nodes);
  place_on_domains(file, servers_per_domain, spec);
  return build_cluster(spec);
}

}  // namespace plansim::io
