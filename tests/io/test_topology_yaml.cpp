#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include "sim/io/topology_loader.hpp"
#include "sim/io/topology_yaml.hpp"

using namespace plansim;
using namespace plansim::io;

namespace {

// A small valid topology; tests replace one line to make it invalid.
const std::string kBase = R"(name: t
nodes: 2
node:
  gpu: H100-SXM-80GB
  gpus: 8
  nvswitch:
    bandwidth: 450 GB/s
    latency: 0.25 us
  pcie:
    generation: 5
    gpus_per_switch: 2
    latency: 0.5 us
  nics:
    count: 8
    kind: infiniband
    bandwidth: 400 Gb/s
    latency: 0.5 us
fabric:
  kind: single_switch
)";

std::string with(const std::string& from, const std::string& to) {
  std::string s = kBase;
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

Topology parse(const std::string& text, std::optional<int> nodes = {}) {
  YamlFile f = YamlFile::parse(text, "t.yaml");
  return read_topology(f, f.root(), nodes);
}

std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

std::map<LinkKind, size_t> count_links(const Topology& t) {
  std::map<LinkKind, size_t> c;
  for (const Link& l : t.links()) ++c[l.kind];
  return c;
}

Topology shipped(const std::string& name, std::optional<int> nodes = {}) {
  return load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/" + name + ".yaml", nodes);
}

}  // namespace

TEST_CASE("topology yaml: the base document builds", "[io][topo]") {
  Topology t = parse(kBase);
  CHECK(t.num_gpus() == 16);
  CHECK(t.num_hosts() == 2);
  CHECK(t.gpu_spec().model == "H100-SXM-80GB");
  CHECK(t.node(t.gpu_node(GpuId(13))).name == "n1.gpu5");
  CHECK(t.host_of(GpuId(13)) == 1);
  auto c = count_links(t);
  CHECK(c[LinkKind::nvlink] == 2 * 8 * 2);
  CHECK(c[LinkKind::pcie] == 2 * (4 + 8 + 8) * 2);  // switch uplinks, GPUs, NICs; both directions
  CHECK(c[LinkKind::infiniband] == 2 * 8 * 2);
  CHECK(parse(kBase, 5).num_hosts() == 5);  // --nodes override
}

TEST_CASE("topology yaml: inline GPU definition", "[io][topo]") {
  Topology t = parse(with("  gpu: H100-SXM-80GB\n",
                          "  gpu: {model: X1, peak: {bf16: 500 TFLOP/s, fp8: 1 PFLOP/s}, memory: 96 GiB, "
                          "memory_bandwidth: 4 TB/s, sm_count: 100}\n"));
  CHECK(t.gpu_spec().model == "X1");
  CHECK(t.gpu_spec().peak(DType::bf16).value() == Approx(500e12));
  CHECK(t.gpu_spec().hbm_capacity.value() == Approx(96.0 * 1073741824.0));
  CHECK(t.gpu_spec().sm_count == 100);
}

TEST_CASE("topology yaml: node.power_limit and gpu.tdp", "[io][topo][power]") {
  // Catalog GPU: its TDP comes from the catalog (H100 SXM 700 W).
  Topology t = parse(with("  gpus: 8\n", "  gpus: 8\n  power_limit: 500 W\n"));
  CHECK(t.gpu_spec().tdp_watts == 700);
  CHECK(t.gpu_spec().power_limit_watts == 500);
  CHECK(t.gpu_spec().power_clock_factor() == Approx(std::pow(500.0 / 700.0, 0.3021)));
  CHECK(parse(kBase).gpu_spec().power_clock_factor() == 1.0);
  // Inline GPU with its own TDP, in kW.
  Topology i = parse(with("  gpu: H100-SXM-80GB\n  gpus: 8\n",
                          "  gpu: {model: X1, peak: {bf16: 500 TFLOP/s}, memory: 96 GiB, memory_bandwidth: 4 TB/s, "
                          "tdp: 1 kW}\n  gpus: 8\n  power_limit: 700 W\n"));
  CHECK(i.gpu_spec().tdp_watts == 1000);
  CHECK(i.gpu_spec().power_limit_watts == 700);
}

TEST_CASE("topology yaml errors: power_limit and tdp", "[io][topo][errors][power]") {
  CHECK(error_of(with("  gpus: 8\n", "  gpus: 8\n  power_limit: 800 W\n")) ==
        "t.yaml:6:16: 'power_limit' (800 W) is above the TDP of GPU 'H100-SXM-80GB' (700 W): the clock cannot rise "
        "past the one its peaks assume");
  CHECK(error_of(with("  gpus: 8\n", "  gpus: 8\n  power_limit: 500\n")) ==
        "t.yaml:6:16: 'power_limit': power '500' needs a unit: W or kW, like '500 W'");
  CHECK(error_of(with("  gpus: 8\n", "  gpus: 8\n  power_limit: 0 W\n")) ==
        "t.yaml:6:16: 'power_limit': power '0 W' is out of range: power must be from 1 W to 1 MW");
  CHECK(error_of(with("  gpu: H100-SXM-80GB\n  gpus: 8\n",
                      "  gpu: {model: X1, peak: {bf16: 500 TFLOP/s}, memory: 96 GiB, memory_bandwidth: 4 TB/s}\n"
                      "  gpus: 8\n  power_limit: 500 W\n")) ==
        "t.yaml:6:16: 'power_limit' needs the GPU's rated power: GPU 'X1' has no TDP (give 'tdp' in its inline definition)");
  CHECK(error_of(with("  gpu: H100-SXM-80GB\n",
                      "  gpu: {model: X1, peak: {bf16: 500 TFLOP/s}, memory: 96 GiB, memory_bandwidth: 4 TB/s, tdp: 5 GW}\n"))
            .find("'tdp': power '5 GW' needs a unit") != std::string::npos);
}

TEST_CASE("topology yaml errors: YAML syntax", "[io][topo][errors]") {
  CHECK(error_of(with("  gpus: 8\n", "  gpus: [8\n")).rfind("t.yaml:", 0) == 0);
  CHECK(error_of(with("  gpus: 8\n", "  gpus: [8\n")).find("YAML syntax error") != std::string::npos);
}

TEST_CASE("topology yaml errors: unknown key with did-you-mean", "[io][topo][errors]") {
  CHECK(error_of(with("  gpus: 8\n", "  gpus: 8\n  gpu_count: 8\n")).rfind("t.yaml:6:3: unknown key 'gpu_count' in node", 0) == 0);
  CHECK(error_of(with("fabric:\n", "fabrik:\n")) == "t.yaml:18:1: unknown key 'fabrik' in the topology (did you mean 'fabric'?)");
  CHECK(error_of(with("    gpus_per_switch: 2\n", "    gpus_per_switch: 2\n    lanse: 16\n")) ==
        "t.yaml:12:5: unknown key 'lanse' in node.pcie (did you mean 'lanes'?)");
}

TEST_CASE("topology yaml errors: wrong type", "[io][topo][errors]") {
  CHECK(error_of(with("  gpus: 8\n", "  gpus: eight\n")) == "t.yaml:5:9: 'gpus' must be an integer from 1 to 1,024, got 'eight'");
  CHECK(error_of(with("    bandwidth: 450 GB/s\n", "    bandwidth: [450]\n")) ==
        "t.yaml:7:16: 'bandwidth' must be a single value with a unit");
  CHECK(error_of(with("  kind: single_switch\n", "  kind: fat_tre\n")) ==
        "t.yaml:19:9: 'kind' must be one of none, single_switch, fat_tree, rail_optimized, got 'fat_tre' (did you mean 'fat_tree'?)");
}

TEST_CASE("topology yaml errors: missing field", "[io][topo][errors]") {
  CHECK(error_of(with("  gpus: 8\n", "")) == "t.yaml:4:3: node is missing the required key 'gpus'");
  CHECK(error_of(with("  kind: single_switch\n", "  kind: fat_tree\n  latency: 1 us\n")) ==
        "t.yaml:19:3: the fabric is missing the required key 'leaf'");
}

TEST_CASE("topology yaml errors: zero or negative sizes", "[io][topo][errors]") {
  CHECK(error_of(with("  gpus: 8\n", "  gpus: 0\n")) == "t.yaml:5:9: 'gpus' must be an integer from 1 to 1,024, got 0");
  CHECK(error_of(with("nodes: 2\n", "nodes: -1\n")) == "t.yaml:2:8: 'nodes' must be an integer from 1 to 131,072, got -1");
  CHECK(error_of(with("    bandwidth: 400 Gb/s\n", "    bandwidth: 0 Gb/s\n")) ==
        "t.yaml:16:16: 'bandwidth' must be a rate from 1 B/s to 1 PB/s, got '0 Gb/s'");
}

TEST_CASE("topology yaml errors: unknown GPU model", "[io][topo][errors]") {
  CHECK(error_of(with("H100-SXM-80GB", "H100-SXM-80G")) ==
        "t.yaml:4:8: unknown GPU model 'H100-SXM-80G' (did you mean 'H100-SXM-80GB'?)");
  CHECK(error_of(with("H100-SXM-80GB", "h100")).find("(did you mean 'H100-SXM-80GB' or 'H100-PCIe'?)") != std::string::npos);
  CHECK(error_of(with("H100-SXM-80GB", "TPU-v5")).find("(catalog: A100-SXM-40GB,") != std::string::npos);
}

TEST_CASE("topology yaml errors: inconsistent counts", "[io][topo][errors]") {
  CHECK(error_of(with("    gpus_per_switch: 2\n", "    gpus_per_switch: 3\n")) ==
        "t.yaml:11:22: 'gpus_per_switch' (3) must divide the GPUs per server (8)");
  CHECK(error_of(with("    latency: 0.5 us\nfabric", "    latency: 0.5 us\n    affinity: [0, 1, 2, 3, 4, 5, 6, 8]\nfabric")) ==
        "t.yaml:18:37: NIC index 8 is out of range: the server has NICs 0..7");
  CHECK(error_of(with("    latency: 0.5 us\nfabric", "    latency: 0.5 us\n    affinity: [0, 1]\nfabric")) ==
        "t.yaml:18:15: 'affinity' lists 2 NICs but the server has 8 GPUs");
  CHECK(error_of(with("  kind: single_switch\n", "  kind: none\n")).rfind("t.yaml:19:3: n1.gpu0 cannot reach n0.gpu0", 0) == 0);
  // (This case once added a second `nvswitch` key, which yaml-cpp silently resolved to the first: now an error.)
  CHECK(error_of(with("  nvswitch:\n    bandwidth: 450 GB/s\n    latency: 0.25 us\n",
                      "  nvswitch: {bandwidth: 1 GB/s, latency: 1 us, domain_servers: 4}\n"))
            .find("'nodes' (2) must be a multiple of nvswitch.domain_servers (4)") != std::string::npos);
}

TEST_CASE("topology yaml errors: fabric tiers and extra links", "[io][topo][errors]") {
  const std::string fat = "  kind: fat_tree\n  latency: 1 us\n  leaf: {down_ports: 8, up_links: 4, up_bandwidth: 50 GB/s, oversubscription: 2}\n  spine: {count: 2}\n";
  CHECK(error_of(with("  kind: single_switch\n", fat)) ==
        "t.yaml:21:79: give either 'up_bandwidth' or 'oversubscription', not both");
  CHECK(error_of(with("  kind: single_switch\n", "  kind: single_switch\nextra:\n  links:\n    - {a: n0.gpu0, b: n1.gpu9, kind: nvlink, bandwidth: 1 GB/s, latency: 1 us}\n"))
            .rfind("t.yaml:22:23: no node named 'n1.gpu9'", 0) == 0);
}

TEST_CASE("topology yaml errors: file not found", "[io][topo][errors]") {
  try {
    (void)load_topology("/nonexistent/topo.yaml");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "/nonexistent/topo.yaml: cannot open file: no such file (paths are relative to the current directory)");
  }
}

TEST_CASE("shipped topologies: dgx-h100", "[io][topo][shipped]") {
  Topology t = shipped("dgx-h100", 4);
  CHECK(t.num_gpus() == 32);
  auto c = count_links(t);
  CHECK(c[LinkKind::nvlink] == 4 * 8 * 2);
  CHECK(c[LinkKind::pcie] == 4 * (4 + 8 + 8) * 2);
  CHECK(c[LinkKind::infiniband] == (32 + 8 * 32) * 2);  // NIC cables + 8 rail leaves x 32 uplinks
  for (const Link& l : t.links()) {
    if (l.kind == LinkKind::nvlink) CHECK(l.bandwidth.value() == Approx(450e9));
    if (l.kind == LinkKind::pcie) CHECK(l.bandwidth.value() == Approx(63e9));
    if (l.kind == LinkKind::infiniband) CHECK(l.bandwidth.value() == Approx(50e9));
  }
  bool nvls = false;
  for (const Node& n : t.nodes()) nvls = nvls || (n.kind == NodeKind::nvswitch && n.in_switch_reduction);
  CHECK(nvls);
  CHECK(t.route(GpuId(0), GpuId(1)).size() == 2);
  CHECK(t.route(GpuId(0), GpuId(8)).size() == 6);  // same rail leaf
  CHECK(t.route(GpuId(0), GpuId(9)).size() == 8);  // rail 0 -> spine -> rail 1
}

TEST_CASE("shipped topologies: every file builds with its expected shape", "[io][topo][shipped]") {
  struct Expect {
    const char* name;
    size_t gpus;
    double nvlink_GBps;  // 0: none
    double nic_GBps;     // 0: none
  };
  for (const Expect& e : {Expect{"dgx-a100", 3072, 300, 25}, Expect{"dgx-h100", 256, 450, 50}, Expect{"hgx-h200", 128, 450, 50},
                          Expect{"gb200-nvl72", 144, 900, 50}, Expect{"pcie-8gpu", 8, 0, 0}, Expect{"ethernet-h100", 512, 450, 25},
                          Expect{"llama3-cluster", 24576, 450, 50}}) {
    INFO(e.name);
    Topology t = shipped(e.name);
    CHECK(t.num_gpus() == e.gpus);
    auto c = count_links(t);
    CHECK((c[LinkKind::nvlink] > 0) == (e.nvlink_GBps > 0));
    for (const Link& l : t.links()) {
      if (l.kind == LinkKind::nvlink) CHECK(l.bandwidth.value() == Approx(e.nvlink_GBps * 1e9));
      if ((l.kind == LinkKind::infiniband || l.kind == LinkKind::ethernet) && t.node(l.src).kind == NodeKind::nic)
        CHECK(l.bandwidth.value() == Approx(e.nic_GBps * 1e9));
    }
  }
}

TEST_CASE("shipped topologies: GB200 NVL72 is one NVLink domain of 72 GPUs", "[io][topo][shipped]") {
  Topology t = shipped("gb200-nvl72");
  CHECK(t.num_islands() == 2);
  CHECK(t.route(GpuId(0), GpuId(71)).size() == 2);  // tray 0 -> tray 17 over NVLink
  CHECK(t.route(GpuId(0), GpuId(72)).size() > 2);   // next rack: network
}

TEST_CASE("shipped topologies: llama3 cluster has 1:7 above pods of 3,072 GPUs", "[io][topo][shipped]") {
  Topology t = shipped("llama3-cluster", 768);  // 2 pods
  CHECK(t.num_gpus() == 6144);
  double leaf_up = 0, spine_down = 0, spine_up = 0;
  for (const Link& l : t.links()) {
    const NodeKind s = t.node(l.src).kind, d = t.node(l.dst).kind;
    if (s == NodeKind::leaf_switch && d == NodeKind::spine_switch) leaf_up += l.bandwidth.value();
    if (s == NodeKind::spine_switch && d == NodeKind::leaf_switch) spine_down += l.bandwidth.value();
    if (s == NodeKind::spine_switch && d == NodeKind::core_switch) spine_up += l.bandwidth.value();
  }
  CHECK(leaf_up == Approx(6144 * 50e9));  // full bisection inside pods
  CHECK(spine_down / spine_up == Approx(7.0));
  CHECK(t.route(GpuId(0), GpuId(3072)).size() == 10);  // pod 0 -> pod 1 through a core
}

TEST_CASE("topology yaml: fabric.load_balance", "[io][topo]") {
  CHECK(parse(kBase).load_balance() == LoadBalance::by_link_kind);
  CHECK(parse(with("  kind: single_switch\n", "  kind: single_switch\n  load_balance: flow_hash\n")).load_balance() ==
        LoadBalance::flow_hash);
  CHECK(parse(with("  kind: single_switch\n", "  kind: single_switch\n  load_balance: destination\n")).load_balance() ==
        LoadBalance::destination);
  CHECK(error_of(with("  kind: single_switch\n", "  kind: single_switch\n  load_balance: spray\n")) ==
        "t.yaml:20:17: 'load_balance' must be one of destination, flow_hash, got 'spray'");
}

TEST_CASE("topology yaml: fabric sharp: true marks the fabric's switches as reducing (InfiniBand only)", "[io][topo]") {
  auto reducing = [](const Topology& t) {
    int n = 0;
    for (const Node& nd : t.nodes())
      if (nd.kind == NodeKind::leaf_switch && nd.in_switch_reduction) ++n;
    return n;
  };
  CHECK(reducing(parse(kBase)) == 0);
  CHECK(reducing(parse(with("  kind: single_switch\n", "  kind: single_switch\n  sharp: true\n"))) == 1);
  CHECK(error_of(with("  kind: single_switch\n", "  kind: single_switch\n  sharp: maybe\n")) ==
        "t.yaml:20:10: 'sharp' must be true or false, got 'maybe'");
  CHECK(error_of(with("    kind: infiniband\n", "    kind: ethernet\n") + "  sharp: true\n") ==
        "t.yaml:20:10: 'sharp: true' needs InfiniBand NICs (SHARP reduces in InfiniBand switches)");
}
