#include "hw/env_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <set>

namespace plansim::hw {
namespace {

nlohmann::json spread(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return {{"min", v.front()}, {"median", n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])}, {"max", v.back()}};
}

constexpr uint64_t kIdle = 0x1;

}  // namespace

std::vector<std::string> throttle_reason_names(uint64_t mask) {
  static const std::pair<uint64_t, const char*> kNames[] = {
      {0x1, "gpu_idle"},          {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},       {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"}, {0x80, "hw_power_brake_slowdown"}, {0x100, "display_clock_setting"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : kNames)
    if (mask & bit) out.emplace_back(name);
  return out;
}

nlohmann::json summarize_samples(const std::vector<NvmlSample>& samples) {
  if (samples.empty()) return {{"samples", 0}};
  std::vector<double> sm, mem, power, temp;
  uint64_t seen = 0;
  size_t throttled = 0;
  for (const NvmlSample& s : samples) {
    sm.push_back(s.sm_clock_mhz);
    mem.push_back(s.mem_clock_mhz);
    power.push_back(s.power_w);
    temp.push_back(s.temperature_c);
    seen |= s.throttle & ~kIdle;
    throttled += (s.throttle & ~kIdle) != 0 ? 1 : 0;
  }
  return {{"samples", samples.size()},
          {"duration_s", samples.back().t_s - samples.front().t_s},
          {"sm_clock_mhz", spread(sm)},
          {"mem_clock_mhz", spread(mem)},
          {"power_w", spread(power)},
          {"temperature_c", spread(temp)},
          {"throttle_reasons", throttle_reason_names(seen)},
          {"throttled_fraction", static_cast<double>(throttled) / static_cast<double>(samples.size())}};
}

TopologyFacts topology_facts(const Topology& t) {
  TopologyFacts f;
  int host = -1;
  for (const Node& n : t.nodes())
    if (n.kind == NodeKind::gpu) {
      host = n.host;
      break;
    }
  std::set<uint32_t> host_nodes;
  for (const Node& n : t.nodes()) {
    if (n.host != host) continue;
    host_nodes.insert(static_cast<uint32_t>(n.id.index()));
    if (n.kind == NodeKind::gpu) ++f.gpus_per_host;
    if (n.kind == NodeKind::nic) ++f.nics_per_host;
  }
  for (const Link& l : t.links()) {
    const bool inside = host_nodes.contains(static_cast<uint32_t>(l.src.index()));
    if (inside && l.kind == LinkKind::nvlink) f.nvlink = true;
    if (inside && t.node(l.src).kind == NodeKind::nic && (l.kind == LinkKind::infiniband || l.kind == LinkKind::ethernet))
      f.nic_gbps = std::max(f.nic_gbps, l.bandwidth.value() * 8 / 1e9);
  }
  return f;
}

double parse_link_rate_gbps(const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end != text.c_str() && v > 0 ? v : 0;
}

std::string nearest_nic(const std::string& gpu_pci_path, const std::vector<DetectedNic>& nics) {
  std::string best;
  size_t best_len = 0;
  for (const DetectedNic& n : nics) {
    size_t len = 0;
    while (len < gpu_pci_path.size() && len < n.pci_path.size() && gpu_pci_path[len] == n.pci_path[len]) ++len;
    if (best.empty() || len > best_len) {
      best = n.name;
      best_len = len;
    }
  }
  return best;
}

nlohmann::json topology_check(const DetectedTopology& d, const TopologyFacts& s) {
  nlohmann::json nics = nlohmann::json::array();
  double fastest = 0;
  for (const DetectedNic& n : d.nics) {
    nics.push_back({{"name", n.name}, {"rate_gbps", n.rate_gbps}, {"pci_path", n.pci_path}});
    fastest = std::max(fastest, n.rate_gbps);
  }
  const int active = d.nvlinks.empty() ? 0 : *std::min_element(d.nvlinks.begin(), d.nvlinks.end());
  nlohmann::json out = {
      {"detected", {{"gpus", d.gpus}, {"nvlinks_per_gpu", d.nvlinks}, {"nics", nics}}},
      {"scenario",
       {{"gpus_per_host", s.gpus_per_host}, {"nvlink", s.nvlink}, {"nics_per_host", s.nics_per_host},
        {"nic_gbps", s.nic_gbps}}},
      {"mismatches", nlohmann::json::array()},
      {"notes", nlohmann::json::array()}};
  if (d.gpus < s.gpus_per_host)
    out["notes"].push_back(fmt::format("the scenario's servers hold {} GPUs, this host {} (a scaled run)", s.gpus_per_host,
                                       d.gpus));
  if (d.gpus > 1 && s.nvlink && active == 0)
    out["mismatches"].push_back("the scenario joins a server's GPUs by NVLink; no active NVLink was found here");
  if (!s.nvlink && active > 0)
    out["mismatches"].push_back(fmt::format("this host's GPUs have {} active NVLinks each; the scenario has none", active));
  if (s.nics_per_host > 0 && d.nics.size() < static_cast<size_t>(s.nics_per_host))
    out["mismatches"].push_back(fmt::format("the scenario has {} NICs per server, this host {}", s.nics_per_host,
                                            d.nics.size()));
  if (s.nic_gbps > 0 && fastest > 0 && fastest < s.nic_gbps)
    out["mismatches"].push_back(fmt::format("the scenario's NICs run at {} Gb/s, this host's at most {} Gb/s", s.nic_gbps,
                                            fastest));
  return out;
}

}  // namespace plansim::hw
