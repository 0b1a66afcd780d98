#include "sim/topo/topology_dot.hpp"

#include <fmt/format.h>

#include <map>
#include <set>

namespace plansim {
namespace {

const char* shape(NodeKind k) {
  switch (k) {
    case NodeKind::gpu: return "box";
    case NodeKind::nic: return "diamond";
    case NodeKind::cpu: return "octagon";
    default: return "ellipse";
  }
}

std::string full(const Topology& t) {
  std::string out = fmt::format("digraph \"{}\" {{\n  graph [label=\"{}: {} GPUs\", rankdir=TB];\n", t.name(), t.name(), t.num_gpus());
  for (const Node& n : t.nodes()) out += fmt::format("  \"{}\" [shape={}];\n", n.name, shape(n.kind));
  std::set<std::pair<uint32_t, uint32_t>> drawn;
  for (const Link& l : t.links()) {
    const auto key = std::minmax(l.src.value, l.dst.value);
    if (!drawn.insert(key).second) continue;
    bool duplex = false;
    for (LinkId r : t.out_links(l.dst)) duplex = duplex || t.link(r).dst == l.src;
    out += fmt::format("  \"{}\" -> \"{}\" [label=\"{} {}\"{}];\n", t.node(l.src).name, t.node(l.dst).name, to_string(l.kind),
                       to_string(l.bandwidth), duplex ? ", dir=both" : "");
  }
  return out + "}\n";
}

}  // namespace

std::string to_dot(const Topology& t, const DotOptions& o) {
  if (t.nodes().size() <= o.max_full_nodes) return full(t);
  // Groups: an island id (>= 0) or a fabric switch (-1 - node index).
  auto group = [&](NodeId n) { return t.island(n) >= 0 ? t.island(n) : -1 - static_cast<int>(n.value); };
  std::set<int> shown;
  std::map<int, std::string> label;
  std::map<int, std::pair<int, int>> hosts;  // island -> host range
  std::map<int, size_t> gpus;
  for (const Node& n : t.nodes()) {
    const int isl = t.island(n.id);
    if (isl < 0) continue;
    if (n.kind == NodeKind::gpu) ++gpus[isl];
    if (n.host >= 0) {
      auto [it, fresh] = hosts.try_emplace(isl, n.host, n.host);
      if (!fresh) it->second = {std::min(it->second.first, n.host), std::max(it->second.second, n.host)};
    }
  }
  for (auto& [isl, r] : hosts) {
    if (isl >= o.max_islands) break;
    shown.insert(isl);
    label[isl] = r.first == r.second ? fmt::format("n{}: {} GPUs", r.first, gpus[isl])
                                     : fmt::format("n{}-n{}: {} GPUs (NVLink domain)", r.first, r.second, gpus[isl]);
  }
  // Switches reachable upward from what is shown, tier by tier, capped.
  std::map<NodeKind, int> per_tier, total_tier;
  for (const Node& n : t.nodes())
    if (t.island(n.id) < 0) ++total_tier[n.kind];
  for (NodeKind k : {NodeKind::leaf_switch, NodeKind::spine_switch, NodeKind::core_switch, NodeKind::other_switch}) {
    for (const Link& l : t.links()) {
      const Node& d = t.node(l.dst);
      if (d.kind != k || !shown.count(group(l.src)) || shown.count(group(l.dst))) continue;
      if (per_tier[k] >= o.max_per_tier) break;
      ++per_tier[k];
      shown.insert(group(l.dst));
      label[group(l.dst)] = d.name;
    }
  }
  std::map<std::pair<int, int>, std::pair<int, Rate>> edges;  // (a, b) with a < b: link count one way, bandwidth
  for (const Link& l : t.links()) {
    const int a = group(l.src), b = group(l.dst);
    if (a == b || a > b || !shown.count(a) || !shown.count(b)) continue;
    auto& e = edges[{a, b}];
    ++e.first;
    e.second = l.bandwidth;
  }
  std::string note = fmt::format("collapsed: {} of {} servers/NVLink domains", std::min<size_t>(hosts.size(), static_cast<size_t>(o.max_islands)), hosts.size());
  for (auto [k, n] : total_tier) note += fmt::format(", {} of {} {}", per_tier[k], n, to_string(k));
  std::string out = fmt::format("digraph \"{}\" {{\n  graph [label=\"{}: {} GPUs ({})\", rankdir=TB];\n", t.name(), t.name(),
                                t.num_gpus(), note);
  for (int g : shown) out += fmt::format("  g{} [label=\"{}\", shape={}];\n", g < 0 ? -g : g + 1000000, label[g], g >= 0 ? "box" : "ellipse");
  for (auto& [ab, e] : edges) {
    auto id = [](int g) { return g < 0 ? -g : g + 1000000; };
    out += fmt::format("  g{} -> g{} [label=\"{} x {}\", dir=both];\n", id(ab.first), id(ab.second), e.first, to_string(e.second));
  }
  return out + "}\n";
}

}  // namespace plansim
