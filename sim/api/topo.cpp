// `plansim topo` as a library call (api/commands.hpp): the cluster's description as text and JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/api/commands.hpp"
#include "sim/io/topology_loader.hpp"
#include "sim/topo/topology_dot.hpp"
#include "sim/topo/topology_stats.hpp"

namespace plansim::api {
namespace {

std::string gbps(Rate r) { return fmt::format("{:.1f} GB/s", r.value() / 1e9); }
std::string us(Time t) { return fmt::format("{:.3f} us", t.micros()); }

std::string text_report(const Topology& t, const TopologySummary& s) {
  std::string o;
  o += fmt::format("topology {}: {} GPUs ({}), {} server{}, {} NVLink/PCIe island{} of {} GPUs\n", s.name, s.gpus,
                   s.gpu_model, s.servers, s.servers == 1 ? "" : "s", s.islands, s.islands == 1 ? "" : "s", s.gpus_per_island);
  std::string counts;
  for (const auto& [k, c] : s.node_counts) counts += fmt::format("{}{} {}", counts.empty() ? "" : ", ", c, k);
  o += fmt::format("graph: {} nodes ({}), {} directed links\n", s.nodes, counts, s.links);
  const GpuSpec& g = t.gpu_spec();
  std::string peaks;
  for (const auto& [d, r] : g.peak_dense) peaks += fmt::format("{}{} {:.1f} TFLOP/s", peaks.empty() ? "" : ", ", to_string(d), r.value() / 1e12);
  o += fmt::format("GPU {}: dense peak {}; memory {:.0f} GiB at {}; {} SMs\n", g.model, peaks,
                   g.hbm_capacity.value() / 1073741824.0, gbps(g.hbm_bandwidth), g.sm_count > 0 ? std::to_string(g.sm_count) : "unknown");
  if (g.power_limit_watts > 0)
    o += fmt::format("power limit {:g} W of the GPU's {:g} W TDP: tensor cores at {:.3f} of the peak clock (README \"Power limit\")\n",
                     g.power_limit_watts, g.tdp_watts, g.power_clock_factor());
  o += "per-GPU bandwidth, per direction:\n";
  for (const auto& b : s.per_gpu) o += fmt::format("  {:<14} {:>12}   {}\n", b.tier, gbps(b.per_gpu), b.how);
  if (!s.oversubscription.empty()) {
    o += "oversubscription (capacity from below : capacity upward, per switch):\n";
    for (const auto& v : s.oversubscription)
      o += v.max_ratio == v.min_ratio ? fmt::format("  {:<6} {:>5} switches  {:.2f}:1\n", v.tier, v.switches, v.max_ratio)
                                      : fmt::format("  {:<6} {:>5} switches  {:.2f}:1 to {:.2f}:1\n", v.tier, v.switches,
                                                    v.min_ratio, v.max_ratio);
  }
  if (s.gpus >= 2)
    o += fmt::format("bisection bandwidth: {} (max-flow from GPUs 0..{} to GPUs {}..{}, one direction)\n", gbps(s.bisection),
                     s.gpus / 2 - 1, s.gpus / 2, s.gpus - 1);
  if (!s.distances.empty()) {
    o += "GPU pairs by distance (hops = links crossed, latency = sum of link latencies):\n";
    for (const auto& d : s.distances)
      o += fmt::format("  {:<20} {:>10} -> {:<12} {:>2} hops  {:>10}  bottleneck {}\n", d.distance, d.a_name, d.b_name, d.hops,
                       us(d.latency), gbps(d.bottleneck));
  }
  return o;
}

nlohmann::json json_report(const Topology& t, const TopologySummary& s) {
  using nlohmann::json;
  json j;
  j["name"] = s.name;
  j["gpus"] = s.gpus;
  j["servers"] = s.servers;
  j["islands"] = s.islands;
  j["gpus_per_island"] = s.gpus_per_island;
  j["graph"] = {{"nodes", s.nodes}, {"directed_links", s.links}};
  for (const auto& [k, c] : s.node_counts) j["graph"]["node_counts"][k] = c;
  const GpuSpec& g = t.gpu_spec();
  j["gpu"] = {{"model", g.model}, {"memory_bytes", g.hbm_capacity.value()}, {"memory_bandwidth_GBps", g.hbm_bandwidth.value() / 1e9},
              {"sm_count", g.sm_count}};
  for (const auto& [d, r] : g.peak_dense) j["gpu"]["peak_dense_TFLOPs"][to_string(d)] = r.value() / 1e12;
  if (g.power_limit_watts > 0) {
    j["gpu"]["tdp_watts"] = g.tdp_watts;
    j["gpu"]["power_limit_watts"] = g.power_limit_watts;
    j["gpu"]["power_clock_factor"] = g.power_clock_factor();
  }
  j["per_gpu_bandwidth_GBps"] = json::array();
  for (const auto& b : s.per_gpu) j["per_gpu_bandwidth_GBps"].push_back({{"tier", b.tier}, {"GBps", b.per_gpu.value() / 1e9}, {"how", b.how}});
  j["oversubscription"] = json::array();
  for (const auto& v : s.oversubscription)
    j["oversubscription"].push_back({{"tier", v.tier}, {"switches", v.switches}, {"max_ratio", v.max_ratio}, {"min_ratio", v.min_ratio}});
  j["bisection"] = {{"GBps", s.bisection.value() / 1e9},
                    {"definition", "max-flow from the first half of the GPUs (by GPU id, host-major) to the second half, one direction"}};
  j["distances"] = json::array();
  for (const auto& d : s.distances)
    j["distances"].push_back({{"distance", d.distance}, {"from", d.a_name}, {"to", d.b_name}, {"hops", d.hops},
                              {"latency_us", d.latency.micros()}, {"bottleneck_GBps", d.bottleneck.value() / 1e9}});
  return j;
}

}  // namespace

CommandResult topo(const std::string& file, std::optional<int> nodes) {
  const Topology t = load_topology(file, nodes);
  const TopologySummary s = summarize(t);
  return CommandResult{0, text_report(t, s), json_report(t, s).dump(2) + "\n", {}};
}

std::string topo_dot(const std::string& file, std::optional<int> nodes) { return to_dot(load_topology(file, nodes)); }

}  // namespace plansim::api
