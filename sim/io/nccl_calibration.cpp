#include "sim/io/nccl_calibration.hpp"

#include <fmt/format.h>

#include <iterator>

#include "sim/io/profile_yaml_internal.hpp"
#include "sim/io/yaml_reader.hpp"

namespace plansim::io {
namespace {

double fraction(MapReader& m, const std::string& key, double fallback) {
  YAML::Node n = m.get(key);
  if (!n) return fallback;
  const double v = m.optional<double>(key, fallback);
  if (!(v > 0.0 && v <= 1.0)) m.fail(n, fmt::format("'{}' must be an efficiency in (0, 1], got {}", key, v));
  return v;
}

void read_per_proto(const YamlFile& f, const YAML::Node& n, const std::string& key, NcclModelParams::PerProto& out) {
  if (!n.IsSequence() || n.size() != 3)
    f.fail(n, fmt::format("'{}' must be a list of three latencies in us: [LL, LL128, Simple]", key));
  for (size_t i = 0; i < 3; ++i)  // microseconds; negative = the protocol is off
    out[i] = scalar_real(f, n[i], key, RealRange{-1e9, 1e9});
}

void read_per_class(const YamlFile& f, const YAML::Node& n, const std::string& what, NcclModelParams::PerClass& out) {
  MapReader m(f, n, what);
  const char* names[] = {"ring", "tree", "nvls", "nvls_tree", "collnet", "pat"};
  static_assert(std::size(names) == kNumLatencyClasses);
  for (size_t c = 0; c < std::size(names); ++c)
    if (YAML::Node v = m.get(names[c])) read_per_proto(f, v, names[c], out[c]);
  m.finish();
}

double non_negative_us(MapReader& m, const std::string& key) {
  const double us = m.time(key).micros();
  if (us < 0) m.fail(m.get(key), fmt::format("'{}' must not be negative, got {} us", key, us));
  return us;
}

}  // namespace

NcclModelParams read_nccl_section(const YamlFile& f, const YAML::Node& node, bool legacy_header, int format_version) {
  NcclModelParams p;
  MapReader top(f, node, legacy_header ? "a calibration profile" : "'collectives'");
  if (legacy_header) {
    (void)top.optional<std::string>("system", "");
    (void)top.optional<std::string>("source", "");
  }
  if (YAML::Node e = top.get("efficiency")) {
    MapReader m(f, e, "'efficiency'");
    p.nvlink_efficiency = fraction(m, "nvlink", p.nvlink_efficiency);
    p.pcie_efficiency = fraction(m, "pcie", p.pcie_efficiency);
    p.network_efficiency = fraction(m, "network", p.network_efficiency);
    p.other_efficiency = fraction(m, "other", p.other_efficiency);
    p.nvls_efficiency = fraction(m, "nvls", p.nvls_efficiency);
    p.collnet_efficiency = fraction(m, "collnet", p.collnet_efficiency);
    p.pat_efficiency = fraction(m, "pat", p.pat_efficiency);
    m.finish();
  }
  if (YAML::Node e = top.get("protocol_efficiency")) {
    MapReader m(f, e, "'protocol_efficiency'");
    p.protocol_efficiency[0] = fraction(m, "LL", p.protocol_efficiency[0]);
    p.protocol_efficiency[1] = fraction(m, "LL128", p.protocol_efficiency[1]);
    p.protocol_efficiency[2] = fraction(m, "Simple", p.protocol_efficiency[2]);
    m.finish();
  }
  p.channels = top.positive_int_or("channels", p.channels, limits::kMaxChannels);
  p.nccl_channels = top.positive_int_or("nccl_channels", p.nccl_channels, limits::kMaxChannels);
  p.pipeline_depth = top.positive_int_or("pipeline_depth", p.pipeline_depth, 1 << 20);
  // NVLS pipeline (sim/coll/nvls_pipeline.hpp): channels and largest chunk (NCCL_NVLS_NCHANNELS, _CHUNKSIZE).
  p.nvls_channels = top.positive_int_or("nvls_channels", p.nvls_channels, limits::kMaxChannels);
  if (YAML::Node e = top.get("nvls_chunk")) {
    const Bytes chunk = top.bytes_or("nvls_chunk", Bytes(p.nvls_chunk_bytes));
    if (chunk.value() < 16384) f.fail(e, "'nvls_chunk' must be at least 16 KiB (NCCL's smallest NVLS chunk)");
    p.nvls_chunk_bytes = chunk.value();
  }
  // Latency rounds of a Simple ring over NVLink (nccl_channels.hpp latency_rounds); 1 = NCCL's tuning model.
  p.simple_slices_per_chunk = top.positive_int_or("simple_slices_per_chunk", p.simple_slices_per_chunk, 64);
  if (YAML::Node e = top.get("channel_cap")) {  // per-channel bus-bandwidth caps; 0 = none
    MapReader m(f, e, "'channel_cap'");
    const char* names[] = {"LL", "LL128", "Simple"};
    for (size_t i = 0; i < 3; ++i)
      p.channel_cap_GBps[i] = m.rate_or(names[i], Rate(p.channel_cap_GBps[i] * 1e9)).value() / 1e9;
    m.finish();
  }
  if (top.get("ll_max")) p.ll_max_GBps = top.rate_or("ll_max", Rate(p.ll_max_GBps * 1e9)).value() / 1e9;
  if (YAML::Node e = top.get("ll_max_multi_node")) {  // LL's cap on 2 / more servers (the host CPU's)
    MapReader m(f, e, "'ll_max_multi_node'");
    const char* names[] = {"two_nodes", "more_nodes"};
    for (size_t i = 0; i < 2; ++i)
      p.ll_max_multi_node_GBps[i] = m.rate_or(names[i], Rate(p.ll_max_multi_node_GBps[i] * 1e9)).value() / 1e9;
    m.finish();
  }
  if (YAML::Node e = top.get("pipeline_chunk")) {
    MapReader m(f, e, "'pipeline_chunk'");
    const char* names[] = {"LL", "LL128", "Simple"};
    for (size_t i = 0; i < 3; ++i)
      p.pipeline_chunk_bytes[i] = m.bytes_or(names[i], Bytes(p.pipeline_chunk_bytes[i])).value();
    m.finish();
  }
  // plansim_profile 1 (and the NCCL-only format) had one per-call `extra_latency`, charged to every call:
  // read as device_latency, as before. Format 2 splits it (nccl_model.hpp) and refuses the old key.
  if (YAML::Node e = top.get("extra_latency")) {
    if (format_version >= 2)
      f.fail(e, "'extra_latency' was split in plansim_profile 2: use 'device_latency' (every call, training "
                "included) and/or 'launch_overhead' (a benchmark loop's per-call floor); see README "
                "\"Calibration profiles\"");
    p.device_latency_us = non_negative_us(top, "extra_latency");
  }
  if (top.get("device_latency")) p.device_latency_us = non_negative_us(top, "device_latency");
  if (top.get("launch_overhead")) p.launch_overhead_us = non_negative_us(top, "launch_overhead");
  if (top.get("launch_overhead_harness"))
    p.launch_overhead_harness = *bench_harness_from_string(top.choice("launch_overhead_harness", {"nccl-tests", "torch"}));
  if (top.get("torch_loop_overhead")) p.torch_loop_overhead_us = non_negative_us(top, "torch_loop_overhead");
  if (top.get("net_latency")) p.net_latency_us = top.time("net_latency").micros();
  if (top.get("net_overhead")) p.net_overhead_us = top.time("net_overhead").micros();
  if (YAML::Node b = top.get("base_latency_us")) read_per_class(f, b, "'base_latency_us'", p.base_latency_us);
  if (YAML::Node h = top.get("hw_latency_us")) {
    MapReader m(f, h, "'hw_latency_us'");
    const char* kinds[] = {"nvlink", "pci", "net"};
    for (size_t k = 0; k < 3; ++k)
      if (YAML::Node v = m.get(kinds[k])) read_per_class(f, v, fmt::format("'hw_latency_us.{}'", kinds[k]), p.hw_latency_us[k]);
    m.finish();
  }
  top.finish();
  return p;
}

namespace {

// Either a calibration profile (`plansim_profile:`; its `collectives:` section) or the NCCL-only format above.
NcclModelParams read(const YamlFile& f) {
  if (f.root().IsMap() && f.root()["plansim_profile"]) {
    const CalibrationProfile profile = read_profile(f);
    if (!profile.collectives)
      f.fail(f.root()["plansim_profile"], "this calibration profile has no 'collectives:' section (the NCCL model's "
                                          "parameters), so it cannot calibrate collectives");
    return *profile.collectives;
  }
  return read_nccl_section(f, f.root(), true, 1);
}

}  // namespace

NcclModelParams load_nccl_calibration(const std::filesystem::path& file) { return read(YamlFile::load(file)); }
NcclModelParams parse_nccl_calibration(const std::string& text, const std::string& name) {
  return read(YamlFile::parse(text, name));
}

}  // namespace plansim::io
