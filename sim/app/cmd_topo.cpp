// `plansim topo FILE [--nodes N] [--json FILE] [--dot FILE]`: describe a cluster.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/core/limits.hpp"
#include "sim/io/topology_loader.hpp"
#include "sim/topo/topology_dot.hpp"
#include "sim/topo/topology_stats.hpp"

namespace plansim::app {
namespace {

struct TopoOptions {
  std::string file;
  int nodes = 0;
  std::string json;
  std::string dot;
};

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

Command add_topo_command(CLI::App& app) {
  auto opt = std::make_shared<TopoOptions>();
  CLI::App* sub = app.add_subcommand("topo", "describe a cluster: GPUs, per-tier bandwidth, bisection, latency by distance");
  sub->add_option("file", opt->file, "topology YAML (see topologies/)")->required();
  sub->add_option("--nodes", opt->nodes, "override the number of servers")->check(count_in(1, limits::kMaxServers));
  sub->add_option("--json", opt->json, "also write the report as JSON to FILE ('-' = stdout, replacing the text)");
  sub->add_option("--dot", opt->dot, "write a Graphviz DOT drawing to FILE ('-' = stdout); big clusters are collapsed");
  return {sub, [opt] {
            check_output_path("--json", opt->json);
            check_output_path("--dot", opt->dot);
            const Topology t = load_topology(opt->file, opt->nodes > 0 ? std::optional<int>(opt->nodes) : std::nullopt);
            const TopologySummary s = summarize(t);
            if (opt->json != "-" && opt->dot != "-") write_output("-", text_report(t, s));
            if (!opt->json.empty()) write_output(opt->json, json_report(t, s).dump(2) + "\n");
            if (!opt->dot.empty()) write_output(opt->dot, to_dot(t));
            return kExitOk;
          }};
}

}  // namespace plansim::app
