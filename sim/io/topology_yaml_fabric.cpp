// The `fabric` and `extra` sections of a topology YAML.
#include <fmt/format.h>

#include "sim/core/limits.hpp"
#include "sim/io/topology_yaml_parts.hpp"

namespace plansim::io {
namespace {

// `up_bandwidth` or `oversubscription` (down:up capacity ratio) of one tier; `down` = the capacity
// entering one switch from below. Neither given: uplinks as fast as `fallback`.
Rate read_uplink_rate(MapReader& m, int up_links, Rate down, Rate fallback) {
  if (m.has("up_bandwidth") && m.has("oversubscription"))
    m.fail(m.get("oversubscription"), "give either 'up_bandwidth' or 'oversubscription', not both");
  if (m.has("up_bandwidth")) return m.positive_rate("up_bandwidth");
  if (m.has("oversubscription")) return down / (up_links * m.real("oversubscription", {0, 1e6, true}));
  return fallback;
}

}  // namespace

FabricSpec read_fabric(const YamlFile& file, const YAML::Node& fabric, const YAML::Node& root, const NicSpec& nics) {
  FabricSpec f;
  f.pos = file.pos(fabric ? fabric : root);
  if (!fabric) return f;
  MapReader m(file, fabric, "the fabric");
  const std::string kind = m.choice("kind", {"none", "single_switch", "fat_tree", "rail_optimized"});
  f.kind = kind == "none" ? FabricKind::none : kind == "single_switch" ? FabricKind::single_switch
           : kind == "fat_tree" ? FabricKind::fat_tree : FabricKind::rail_optimized;
  if (f.kind == FabricKind::none) {
    m.finish();
    return f;
  }
  if (nics.count == 0) m.fail(m.get("kind"), fmt::format("a '{}' fabric needs NICs: add node.nics", kind));
  // In-network reduction (NCCL's CollNet over the SHARP plugin): InfiniBand switches only.
  f.sharp = m.optional<bool>("sharp", false);
  if (f.sharp && nics.kind != LinkKind::infiniband)
    m.fail(m.get("sharp"), "'sharp: true' needs InfiniBand NICs (SHARP reduces in InfiniBand switches)");
  // Equal-cost path choice; default: by the NICs' link kind (InfiniBand destination, Ethernet hash).
  if (m.get("load_balance")) {
    const std::string lb = m.choice("load_balance", {"destination", "flow_hash"});
    f.load_balance = lb == "destination" ? LoadBalance::destination : LoadBalance::flow_hash;
  }
  if (f.kind == FabricKind::single_switch) {
    f.tiers = 1;
    m.finish();
    return f;
  }
  f.latency = m.time("latency");
  MapReader leaf(file, m.require("leaf"), "fabric.leaf");
  f.leaf_down_ports = leaf.positive_int("down_ports", limits::kMaxSwitchesPerTier);
  f.leaf_up_links = leaf.positive_int("up_links", limits::kMaxSwitchesPerTier);
  f.leaf_up_bandwidth = read_uplink_rate(leaf, f.leaf_up_links, nics.bandwidth * f.leaf_down_ports, nics.bandwidth);
  leaf.finish();

  YAML::Node pod = m.get("pod");
  f.tiers = pod ? 3 : 2;
  MapReader spine(file, m.require("spine"), "fabric.spine");
  f.spines = spine.positive_int_or("count", f.leaf_up_links, limits::kMaxSwitchesPerTier);
  if (pod) {
    MapReader p(file, pod, "fabric.pod");
    f.leaves_per_pod = p.positive_int("leaves", limits::kMaxSwitchesPerTier);
    p.finish();
    f.spine_up_links = spine.positive_int("up_links", limits::kMaxSwitchesPerTier);
    // Links entering one spine from the leaves of its pod.
    const double down_links = static_cast<double>(f.leaves_per_pod) * f.leaf_up_links / f.spines;
    f.spine_up_bandwidth = read_uplink_rate(spine, f.spine_up_links, f.leaf_up_bandwidth * down_links, f.leaf_up_bandwidth);
    spine.finish();
    YAML::Node core = m.get("core");
    // Default: one link per pod from every core; spines × up_links in int64 (each is capped, the product not).
    const int64_t cores = int64_t{f.spines} * f.spine_up_links;
    if (core) {
      MapReader c(file, core, "fabric.core");
      f.cores = c.positive_int_or("count", 1, limits::kMaxSwitchesPerTier);
      if (!c.has("count") && cores > limits::kMaxSwitchesPerTier)
        c.fail(core, fmt::format("spine.count × spine.up_links = {} cores is more than {}, the cap per tier; give "
                                 "core.count", with_commas(cores), with_commas(limits::kMaxSwitchesPerTier)));
      if (!c.has("count")) f.cores = static_cast<int>(cores);
      c.finish();
    } else {
      if (cores > limits::kMaxSwitchesPerTier)
        m.fail(pod, fmt::format("spine.count × spine.up_links = {} cores is more than {}, the cap per tier; give "
                                "core.count", with_commas(cores), with_commas(limits::kMaxSwitchesPerTier)));
      f.cores = static_cast<int>(cores);
    }
  } else {
    for (const char* key : {"up_links", "up_bandwidth", "oversubscription"})
      if (spine.has(key))
        spine.fail(spine.get(key), fmt::format("'spine.{}' describes links to a core tier: add 'pod' (3 tiers)", key));
    spine.finish();
    if (m.has("core")) m.fail(m.get("core"), "'core' needs 'pod' (3 tiers: leaf, spine, core)");
  }
  m.finish();
  return f;
}

void read_extra(const YamlFile& file, const YAML::Node& extra, ClusterSpec& spec) {
  MapReader m(file, extra, "extra");
  if (YAML::Node nodes = m.get("nodes")) {
    if (!nodes.IsSequence()) m.fail(nodes, "'extra.nodes' must be a list of {name, kind}");
    for (const YAML::Node& n : nodes) {
      MapReader r(file, n, "an extra node");
      ExtraNode e;
      e.name = r.required<std::string>("name");
      const std::string kind = r.choice_or("kind", {"switch", "leaf", "spine", "core", "nvswitch", "pcie_switch", "cpu"}, "switch");
      e.kind = kind == "leaf" ? NodeKind::leaf_switch : kind == "spine" ? NodeKind::spine_switch
               : kind == "core" ? NodeKind::core_switch : kind == "nvswitch" ? NodeKind::nvswitch
               : kind == "pcie_switch" ? NodeKind::pcie_switch : kind == "cpu" ? NodeKind::cpu : NodeKind::other_switch;
      e.pos = file.pos(r.get("name"));
      r.finish();
      spec.extra_nodes.push_back(std::move(e));
    }
  }
  if (YAML::Node links = m.get("links")) {
    if (!links.IsSequence()) m.fail(links, "'extra.links' must be a list of {a, b, kind, bandwidth, latency}");
    for (const YAML::Node& n : links) {
      MapReader r(file, n, "an extra link");
      ExtraLink e;
      e.a = r.required<std::string>("a");
      e.b = r.required<std::string>("b");
      e.pos_a = file.pos(r.get("a"));
      e.pos_b = file.pos(r.get("b"));
      const std::string kind = r.choice("kind", {"nvlink", "pcie", "infiniband", "ethernet", "other"});
      e.kind = kind == "nvlink" ? LinkKind::nvlink : kind == "pcie" ? LinkKind::pcie
               : kind == "infiniband" ? LinkKind::infiniband : kind == "ethernet" ? LinkKind::ethernet : LinkKind::other;
      e.bandwidth = r.positive_rate("bandwidth");
      e.latency = r.time("latency");
      e.duplex = r.optional<bool>("duplex", true);
      if (e.a == e.b) r.fail(r.get("b"), fmt::format("a link from '{}' to itself", e.a));
      r.finish();
      spec.extra_links.push_back(std::move(e));
    }
  }
  m.finish();
}

}  // namespace plansim::io
