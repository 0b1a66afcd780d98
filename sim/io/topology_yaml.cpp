// Topology YAML -> ClusterSpec (validated, every error at file:line:col) -> Topology.
// The fabric and `extra` sections are read in topology_yaml_fabric.cpp.
#include "sim/io/topology_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/core/limits.hpp"
#include "sim/io/topology_yaml_parts.hpp"
#include "sim/topo/gpu_catalog.hpp"

namespace plansim::io {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

GpuSpec catalog_gpu(const YamlFile& file, const YAML::Node& n) {
  const std::string name = n.Scalar();
  if (auto spec = find_gpu_model(name)) return *spec;
  const std::vector<std::string> names = gpu_model_names();
  std::string msg = fmt::format("unknown GPU model '{}'", name);
  // Names containing what was typed (any case) first; else the closest by edit distance.
  std::vector<std::string> close;
  for (const auto& c : names)
    if (lower(c).find(lower(name)) != std::string::npos) close.push_back(c);
  if (close.empty())
    if (auto s = did_you_mean(name, names)) close.push_back(*s);
  if (!close.empty()) msg += fmt::format(" (did you mean '{}'?)", fmt::join(close, "' or '"));
  else msg += fmt::format(" (catalog: {}; or define it inline with model/peak/memory/memory_bandwidth)", fmt::join(names, ", "));
  file.fail(n, msg);
}

// `gpu: H100-SXM-80GB` or an inline mapping.
GpuSpec read_gpu(const YamlFile& file, const YAML::Node& n) {
  if (n.IsScalar()) return catalog_gpu(file, n);
  MapReader m(file, n, "the gpu");
  GpuSpec g;
  g.model = m.required<std::string>("model");
  YAML::Node peak = m.require("peak");
  MapReader pm(file, peak, "gpu.peak");
  std::vector<std::string> dtypes;
  for (auto it = peak.begin(); it != peak.end(); ++it) {
    const std::string key = it->first.Scalar();
    auto d = dtype_from_string(key);
    if (!d) {
      std::string msg = fmt::format("unknown dtype '{}' in gpu.peak (known: fp32, tf32, fp16, bf16, fp8)", key);
      if (auto s = did_you_mean(key, {"fp32", "tf32", "fp16", "bf16", "fp8"})) msg += fmt::format(" (did you mean '{}'?)", *s);
      file.fail(it->first, msg);
    }
    g.peak_dense[*d] = pm.positive_flop_rate(key);
  }
  if (g.peak_dense.empty()) file.fail(peak, "gpu.peak needs at least one dtype, e.g. 'bf16: 989 TFLOP/s'");
  g.hbm_capacity = m.positive_bytes("memory");
  g.hbm_bandwidth = m.positive_rate("memory_bandwidth");
  if (m.has("sm_count")) g.sm_count = m.positive_int("sm_count", 1'000'000);
  if (m.has("tdp")) g.tdp_watts = m.watts("tdp");
  m.finish();
  return g;
}

NvSwitchSpec read_nvswitch(const YamlFile& file, const YAML::Node& n) {
  MapReader m(file, n, "node.nvswitch");
  NvSwitchSpec s;
  s.bandwidth = m.positive_rate("bandwidth");
  s.latency = m.time("latency");
  s.nvls = m.optional<bool>("nvls", false);
  s.domain_servers = m.positive_int_or("domain_servers", 1, limits::kMaxServers);
  m.finish();
  return s;
}

// x16 per-direction bandwidth by PCIe generation (stas00/ml-engineering network/README.md PCIe table:
// Gen4 31, Gen5 63, Gen6 121 GB/s; Gen3 = 8 GT/s x 16 x 128/130 / 8 = 15.75 GB/s).
Rate pcie_x16(int generation) {
  switch (generation) {
    case 3: return GBps(15.75);
    case 4: return GBps(31);
    case 5: return GBps(63);
    default: return GBps(121);
  }
}

PcieSpec read_pcie(const YamlFile& file, const YAML::Node& n, int gpus) {
  MapReader m(file, n, "node.pcie");
  PcieSpec p;
  if (m.has("bandwidth") && m.has("generation"))
    m.fail(m.get("bandwidth"), "give either 'generation' (+ 'lanes') or 'bandwidth', not both");
  if (m.has("bandwidth")) {
    p.bandwidth = m.positive_rate("bandwidth");
  } else {
    YAML::Node gen = m.require("generation");
    const int g = m.required<int>("generation");
    if (g < 3 || g > 6) m.fail(gen, fmt::format("'generation' must be 3, 4, 5 or 6, got {}", g));
    const int lanes = m.positive_int_or("lanes", 16, 16);
    if (lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8 && lanes != 16)
      m.fail(m.get("lanes"), fmt::format("'lanes' must be 1, 2, 4, 8 or 16, got {}", lanes));
    p.bandwidth = pcie_x16(g) * (lanes / 16.0);
  }
  p.latency = m.time("latency");
  p.gpus_per_switch = m.positive_int("gpus_per_switch", limits::kMaxGpusPerServer);
  if (gpus % p.gpus_per_switch != 0)
    m.fail(m.get("gpus_per_switch"),
           fmt::format("'gpus_per_switch' ({}) must divide the GPUs per server ({})", p.gpus_per_switch, gpus));
  p.cpus = m.positive_int_or("cpus", 1, limits::kMaxGpusPerServer);
  if (p.cpus > gpus / p.gpus_per_switch)
    m.fail(m.get("cpus"), fmt::format("{} CPUs for {} PCIe switches: some CPU would hold no switch", p.cpus,
                                      gpus / p.gpus_per_switch));
  p.p2p = m.optional<bool>("p2p", true);
  p.uplink_bandwidth = m.rate_or("uplink_bandwidth", p.bandwidth);
  if (p.cpus > 1) {
    MapReader c(file, m.require("cpu_link"), "node.pcie.cpu_link");
    p.cpu_link_bandwidth = c.positive_rate("bandwidth");
    p.cpu_link_latency = c.time("latency");
    c.finish();
  } else if (m.has("cpu_link")) {
    m.fail(m.get("cpu_link"), "'cpu_link' joins CPUs: it needs 'cpus' of 2 or more");
  }
  m.finish();
  return p;
}

NicSpec read_nics(const YamlFile& file, const YAML::Node& n, int gpus) {
  MapReader m(file, n, "node.nics");
  NicSpec s;
  s.count = m.positive_int("count", limits::kMaxNicsPerServer);
  s.kind = m.choice("kind", {"infiniband", "ethernet"}) == "infiniband" ? LinkKind::infiniband : LinkKind::ethernet;
  s.bandwidth = m.positive_rate("bandwidth");
  s.latency = m.time("latency");
  if (YAML::Node a = m.get("affinity")) {
    if (!a.IsSequence()) m.fail(a, "'affinity' must be a list: the NIC index of each GPU, e.g. [0, 0, 1, 1]");
    if (a.size() != static_cast<size_t>(gpus))
      m.fail(a, fmt::format("'affinity' lists {} NICs but the server has {} GPUs", a.size(), gpus));
    for (const YAML::Node& e : a) {
      const int64_t v = scalar_integer(file, e, "affinity", {-(int64_t{1} << 62), int64_t{1} << 62});
      if (v < 0 || v >= s.count)
        m.fail(e, fmt::format("NIC index {} is out of range: the server has NICs 0..{}", v, s.count - 1));
      s.affinity.push_back(static_cast<int>(v));
    }
  } else {
    for (int i = 0; i < gpus; ++i) s.affinity.push_back(i * s.count / gpus);
  }
  m.finish();
  return s;
}

NodeSpec read_node(const YamlFile& file, const YAML::Node& n) {
  MapReader m(file, n, "node");
  NodeSpec s;
  s.gpu = read_gpu(file, m.require("gpu"));
  s.gpus = m.positive_int("gpus", limits::kMaxGpusPerServer);
  // The board power limit the GPUs run under (`nvidia-smi -pl`; README "Power limit").
  if (m.has("power_limit")) {
    const double w = m.watts("power_limit");
    if (!(s.gpu.tdp_watts > 0))
      m.fail(m.get("power_limit"), fmt::format("'power_limit' needs the GPU's rated power: GPU '{}' has no TDP (give "
                                               "'tdp' in its inline definition)", s.gpu.model));
    if (w > s.gpu.tdp_watts)
      m.fail(m.get("power_limit"), fmt::format("'power_limit' ({} W) is above the TDP of GPU '{}' ({} W): the "
                                               "clock cannot rise past the one its peaks assume", w, s.gpu.model, s.gpu.tdp_watts));
    s.gpu.power_limit_watts = w;
  }
  if (YAML::Node nv = m.get("nvswitch")) s.nvswitch = read_nvswitch(file, nv);
  s.pcie = read_pcie(file, m.require("pcie"), s.gpus);
  if (YAML::Node nics = m.get("nics")) s.nics = read_nics(file, nics, s.gpus);
  // Each GPU's own link to host memory where it is not the PCIe tree (Grace's NVLink-C2C).
  if (m.has("host_link")) s.host_link = m.positive_rate("host_link");
  m.finish();
  return s;
}

}  // namespace

ClusterSpec read_cluster_spec(const YamlFile& file, const YAML::Node& node, std::optional<int> nodes) {
  MapReader m(file, node, "the topology");
  ClusterSpec spec;
  spec.name = m.has("name") ? m.required<std::string>("name")
                            : std::filesystem::path(file.name()).stem().string();
  (void)m.get("description");  // free text
  if (YAML::Node c = m.get("calibration"))  // a profile path, read by the scenario loader (io/scenario_calibration.hpp)
    if (!c.IsScalar()) m.fail(c, "'calibration' must be a profile file path");
  spec.servers = m.positive_int_or("nodes", 1, limits::kMaxServers);
  if (nodes) {
    if (*nodes <= 0 || *nodes > limits::kMaxServers)
      throw ConfigError(file.pos(node), fmt::format("--nodes must be from 1 to {} servers, got {}",
                                                    with_commas(limits::kMaxServers), *nodes));
    spec.servers = *nodes;
  }
  spec.node = read_node(file, m.require("node"));
  const int64_t gpus = int64_t{spec.servers} * spec.node.gpus;
  if (gpus > limits::kMaxGpus)
    file.fail(m.has("nodes") && !nodes ? m.get("nodes") : node,
              fmt::format("{} servers × {} GPUs = {} GPUs is more than {}, the cap (README 'Limits')",
                          with_commas(spec.servers), spec.node.gpus, with_commas(gpus), with_commas(limits::kMaxGpus)));
  if (spec.node.nvswitch && m.has("nodes") && spec.node.nvswitch->domain_servers > 1 && !nodes &&
      spec.servers % spec.node.nvswitch->domain_servers != 0)
    m.fail(m.get("nodes"), fmt::format("'nodes' ({}) must be a multiple of nvswitch.domain_servers ({})", spec.servers,
                                       spec.node.nvswitch->domain_servers));
  spec.fabric = read_fabric(file, m.get("fabric"), node, spec.node.nics);
  if (YAML::Node extra = m.get("extra")) read_extra(file, extra, spec);
  m.finish();
  // The graph's size, before anything is allocated (a fabric's tiers multiply).
  if (const std::string why = cluster_size_problem(spec); !why.empty()) file.fail(m.get("fabric") ? m.get("fabric") : node, why);
  return spec;
}

Topology read_topology(const YamlFile& file, const YAML::Node& node, std::optional<int> nodes) {
  return build_cluster(read_cluster_spec(file, node, nodes));
}

}  // namespace plansim::io
