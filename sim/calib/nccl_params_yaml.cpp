#include "sim/calib/nccl_params_yaml.hpp"

#include <fmt/format.h>

#include <iterator>

namespace plansim::calib {
namespace {

const char* kProtoNames[] = {"LL", "LL128", "Simple"};
const char* kClassNames[] = {"ring", "tree", "nvls", "nvls_tree", "collnet", "pat"};
static_assert(std::size(kClassNames) == kNumLatencyClasses);
const char* kHwNames[] = {"nvlink", "pci", "net"};

std::string per_proto(const NcclModelParams::PerProto& v) { return fmt::format("[{}, {}, {}]", v[0], v[1], v[2]); }

std::string per_class(const NcclModelParams::PerClass& v, const NcclModelParams::PerClass& d, const std::string& pad) {
  std::string t;
  for (size_t c = 0; c < v.size(); ++c)
    if (v[c] != d[c]) t += fmt::format("{}{}: {}\n", pad, kClassNames[c], per_proto(v[c]));
  return t;
}

}  // namespace

std::string nccl_params_yaml(const NcclModelParams& p, const std::string& always_efficiency_key) {
  const NcclModelParams d;
  std::string y = "collectives:\n";
  std::string eff;
  const std::pair<const char*, std::pair<double, double>> effs[] = {
      {"nvlink", {p.nvlink_efficiency, d.nvlink_efficiency}},   {"pcie", {p.pcie_efficiency, d.pcie_efficiency}},
      {"network", {p.network_efficiency, d.network_efficiency}}, {"other", {p.other_efficiency, d.other_efficiency}},
      {"nvls", {p.nvls_efficiency, d.nvls_efficiency}},         {"collnet", {p.collnet_efficiency, d.collnet_efficiency}},
      {"pat", {p.pat_efficiency, d.pat_efficiency}}};
  for (const auto& [name, v] : effs)
    if (v.first != v.second || always_efficiency_key == name) eff += fmt::format("    {}: {:.2f}\n", name, v.first);
  if (!eff.empty()) y += "  efficiency:\n" + eff;
  std::string proto;
  for (size_t i = 0; i < 3; ++i)
    if (p.protocol_efficiency[i] != d.protocol_efficiency[i])
      proto += fmt::format("    {}: {}\n", kProtoNames[i], p.protocol_efficiency[i]);
  if (!proto.empty()) y += "  protocol_efficiency:\n" + proto;
  if (p.channels != d.channels) y += fmt::format("  channels: {}\n", p.channels);
  if (p.nccl_channels != d.nccl_channels) y += fmt::format("  nccl_channels: {}\n", p.nccl_channels);
  if (p.pipeline_depth != d.pipeline_depth) y += fmt::format("  pipeline_depth: {}\n", p.pipeline_depth);
  if (p.simple_slices_per_chunk != d.simple_slices_per_chunk)
    y += fmt::format("  simple_slices_per_chunk: {}\n", p.simple_slices_per_chunk);
  std::string cap;
  for (size_t i = 0; i < 3; ++i)
    if (p.channel_cap_GBps[i] != d.channel_cap_GBps[i])
      cap += fmt::format("    {}: {} GB/s\n", kProtoNames[i], p.channel_cap_GBps[i]);
  if (!cap.empty()) y += "  channel_cap:\n" + cap;
  if (p.ll_max_GBps != d.ll_max_GBps) y += fmt::format("  ll_max: {} GB/s\n", p.ll_max_GBps);
  if (p.ll_max_multi_node_GBps != d.ll_max_multi_node_GBps)
    y += fmt::format("  ll_max_multi_node:\n    two_nodes: {} GB/s\n    more_nodes: {} GB/s\n",
                     p.ll_max_multi_node_GBps[0], p.ll_max_multi_node_GBps[1]);
  std::string chunk;
  for (size_t i = 0; i < 3; ++i)
    if (p.pipeline_chunk_bytes[i] != d.pipeline_chunk_bytes[i])
      chunk += fmt::format("    {}: {:.0f} B\n", kProtoNames[i], p.pipeline_chunk_bytes[i]);
  if (!chunk.empty()) y += "  pipeline_chunk:\n" + chunk;
  if (p.nvls_channels != d.nvls_channels) y += fmt::format("  nvls_channels: {}\n", p.nvls_channels);
  if (p.nvls_chunk_bytes != d.nvls_chunk_bytes) y += fmt::format("  nvls_chunk: {:.0f} B\n", p.nvls_chunk_bytes);
  y += fmt::format("  device_latency: {:.2f} us\n", p.device_latency_us);
  y += fmt::format("  launch_overhead: {:.2f} us\n", p.launch_overhead_us);
  if (p.launch_overhead_harness != d.launch_overhead_harness)
    y += fmt::format("  launch_overhead_harness: {}  # the loop the floor was measured under\n",
                     to_string(p.launch_overhead_harness));
  if (p.torch_loop_overhead_us != d.torch_loop_overhead_us)
    y += fmt::format("  torch_loop_overhead: {:.2f} us  # a torch.distributed loop's per-call host cost\n",
                     p.torch_loop_overhead_us);
  if (p.net_latency_us != d.net_latency_us) y += fmt::format("  net_latency: {:.2f} us\n", p.net_latency_us);
  if (p.net_overhead_us != d.net_overhead_us) y += fmt::format("  net_overhead: {} us\n", p.net_overhead_us);
  if (const std::string b = per_class(p.base_latency_us, d.base_latency_us, "    "); !b.empty())
    y += "  base_latency_us:\n" + b;
  std::string hw;
  for (size_t k = 0; k < 3; ++k)
    if (const std::string c = per_class(p.hw_latency_us[k], d.hw_latency_us[k], "      "); !c.empty())
      hw += fmt::format("    {}:\n{}", kHwNames[k], c);
  if (!hw.empty()) y += "  hw_latency_us:\n" + hw;
  return y;
}

}  // namespace plansim::calib
