#include "sim/coll/nccl_model.hpp"

#include "sim/coll/nccl_channels.hpp"
#include "sim/coll/nvls_pipeline.hpp"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <vector>

namespace plansim {

const char* to_string(Protocol p) {
  switch (p) {
    case Protocol::ll: return "LL";
    case Protocol::ll128: return "LL128";
    case Protocol::simple: return "Simple";
  }
  return "?";
}

std::optional<Protocol> protocol_from_string(const std::string& s) {
  std::string k;
  for (char c : s) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (k == "ll") return Protocol::ll;
  if (k == "ll128") return Protocol::ll128;
  if (k == "simple") return Protocol::simple;
  return std::nullopt;
}

const char* to_string(BenchHarness h) { return h == BenchHarness::torch ? "torch" : "nccl-tests"; }

std::optional<BenchHarness> bench_harness_from_string(const std::string& s) {
  if (s == "nccl-tests") return BenchHarness::nccl_tests;
  if (s == "torch") return BenchHarness::torch;
  return std::nullopt;
}

NcclModelParams NcclModelParams::ideal() {
  NcclModelParams m;
  for (auto& c : m.base_latency_us)
    for (auto& v : c) v = v < 0 ? v : 0.0;
  for (auto& hw : m.hw_latency_us)
    for (auto& c : hw)
      for (auto& v : c) v = v < 0 ? v : 0.0;
  m.protocol_efficiency = {1.0, 1.0, 1.0};
  m.nvlink_efficiency = m.pcie_efficiency = m.network_efficiency = m.other_efficiency = m.nvls_efficiency = 1.0;
  m.channels = 1;
  m.pipeline_chunk_bytes = {0.0, 0.0, 0.0};
  m.nvls_chunk_bytes = 0.0;
  m.device_latency_us = 0.0;
  m.launch_overhead_us = 0.0;
  m.ring_plateau_factor = 1.0;
  m.tree_allreduce_efficiency = 1.0;
  m.tree_size_correction = false;
  m.collnet_efficiency = 1.0;
  m.collnet_arity_latency_us = 0.0;
  m.pat_rank_latency_us = 0.0;
  m.pat_efficiency = 1.0;
  m.simple_slices_per_chunk = 0;
  m.channel_cap_GBps = {0.0, 0.0, 0.0};
  m.ll_max_GBps = 0.0;
  m.ll_max_multi_node_GBps = {0.0, 0.0};
  m.net_latency_us = 0.0;
  m.net_overhead_us = 0.0;
  m.thread_threshold = {0.0, 0.0, 0.0};
  return m;
}

bool NcclModelParams::protocol_enabled(LatencyClass c, Protocol p) const {
  return base_latency_us[static_cast<size_t>(c)][static_cast<size_t>(p)] >= 0 &&
         protocol_efficiency[static_cast<size_t>(p)] > 0;
}

bool protocol_on_by_default(Protocol p, HwKind intra) {
  return p != Protocol::ll128 || intra == HwKind::nvlink;
}

HwKind intra_hw_kind(const Topology& topo, std::span<const GpuId> ranks) {
  // The first pair of ranks sharing a server decides (O(n) with a host -> first rank map).
  std::unordered_map<int, GpuId> first;
  for (GpuId g : ranks) {
    auto [it, fresh] = first.emplace(topo.host_of(g), g);
    if (fresh) continue;
    std::vector<LinkId> r;
    append_route(topo, it->second, g, r);
    for (LinkId l : r)
      if (topo.link(l).kind == LinkKind::nvlink) return HwKind::nvlink;
    return HwKind::pci;
  }
  return HwKind::nvlink;
}

Time software_latency(const NcclModelParams& m, LatencyClass c, Protocol p, const FlowPlan& plan, HwKind intra) {
  if (plan.phases.empty()) return Time::zero();
  const auto ci = static_cast<size_t>(c), pi = static_cast<size_t>(p);
  const bool simple = p == Protocol::simple;
  double intra_lat = std::max(0.0, m.hw_latency_us[static_cast<size_t>(intra)][ci][pi]);
  // One GPU per server (no intra-server step): the tree's network latency (tuning.cc).
  const size_t net_class = plan.steps_intra == 0 ? static_cast<size_t>(LatencyClass::tree) : ci;
  double inter_lat = std::max(0.0, m.hw_latency_us[static_cast<size_t>(HwKind::net)][net_class][pi]);
  if (plan.steps_inter > 0) {
    inter_lat += std::max(0.0, m.net_latency_us) * (simple ? 2 : 1);
    if (c == LatencyClass::ring) intra_lat = std::max(intra_lat, std::max(0.0, m.net_overhead_us) * (simple ? 3 : 1));
  }
  const double rounds = latency_rounds(m, p, plan, intra);
  double steps_us = rounds * (plan.steps_intra * intra_lat + plan.steps_inter * inter_lat);
  if (c == LatencyClass::collnet && plan.nnodes > 0)  // scatter and gather serialise over the local ranks
    steps_us += 2.0 * std::max(0, plan.nranks / plan.nnodes - 1) * std::max(0.0, m.collnet_arity_latency_us);
  if (c == LatencyClass::pat) {  // tuning.cc's own formula for PAT: log2i(nNodes) x interLat / 3.5 + nRanks x 2.8
    int log2_nodes = 0;
    while ((2 << log2_nodes) <= plan.nnodes) ++log2_nodes;
    steps_us = log2_nodes * inter_lat / std::max(1e-9, m.pat_log_latency_divisor) +
               plan.nranks * std::max(0.0, m.pat_rank_latency_us);
  }
  double us = std::max(0.0, m.base_latency_us[ci][pi]) + steps_us;
  if (plan.ring_plateau && c == LatencyClass::ring && p == Protocol::simple) {
    us *= m.ring_plateau_factor;
    steps_us *= m.ring_plateau_factor;
  }
  // NCCL's per-step hop latency (hwLat) is what a step costs over its hop, wire included; the phases
  // also charge their flows' route latency (the topology's link latencies). Each hop is paid once: the
  // larger of the two, so the route's part already inside the steps' latency is not added again.
  us -= std::min(steps_us, plan_route_latency(plan).micros());
  us += m.device_latency_us;
  return Time::us(us);
}

Time plan_route_latency(const FlowPlan& plan) {
  Time total = Time::zero();
  for (const auto& ph : plan.phases) {
    Time longest = Time::zero();
    for (const auto& f : ph.flows) longest = std::max(longest, f.latency);
    total += longest;
  }
  return total;
}

namespace {
// The flow's link kind's efficiency (its slowest link; NVLS flows: nvls_efficiency) x the protocol's.
double link_and_protocol_efficiency(const NcclModelParams& m, Protocol p, const Topology& topo, const PlannedFlow& f) {
  double link_eff = 1.0;
  if (f.in_switch) {
    link_eff = m.nvls_efficiency;
  } else if (!f.links.empty()) {
    const Link* slowest = &topo.link(f.links.front());
    for (LinkId l : f.links)
      if (topo.link(l).bandwidth < slowest->bandwidth) slowest = &topo.link(l);
    switch (slowest->kind) {
      case LinkKind::nvlink: link_eff = m.nvlink_efficiency; break;
      case LinkKind::pcie: link_eff = m.pcie_efficiency; break;
      case LinkKind::infiniband:
      case LinkKind::ethernet: link_eff = m.network_efficiency; break;
      case LinkKind::other: link_eff = m.other_efficiency; break;
    }
  }
  return link_eff * m.protocol_efficiency[static_cast<size_t>(p)];
}
}  // namespace

double tree_size_correction(Protocol p, Bytes call_bytes) {
  // NCCL 2.19-2.28 src/graph/tuning.cc treeCorrectionFactor[protocol][log2i(nBytes >> 6)], 23 sizes.
  static constexpr std::array<std::array<double, 23>, kNumProtocols> kFactor{{
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},  // LL
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},  // LL128
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},         // Simple
  }};
  auto units = static_cast<uint64_t>(std::max(0.0, call_bytes.value())) >> 6;
  int log_size = 0;
  while ((units >>= 1) > 0) ++log_size;
  return log_size < 23 ? kFactor[static_cast<size_t>(p)][static_cast<size_t>(log_size)] : 1.0;
}

double flow_efficiency(const NcclModelParams& m, Protocol p, const Topology& topo, const PlannedFlow& f) {
  double tree = 1.0;
  if (f.tree_allreduce_call_bytes.value() > 0) {
    tree = std::max(0.0, m.tree_allreduce_efficiency);
    if (m.tree_size_correction) tree *= tree_size_correction(p, f.tree_allreduce_call_bytes);
  }
  if (f.collnet) tree *= std::max(0.0, m.collnet_efficiency);
  if (f.pat) tree *= std::max(0.0, m.pat_efficiency);
  return tree * link_and_protocol_efficiency(m, p, topo, f);
}

Bytes tree_chunk_bytes(Protocol p, Bytes per_channel, int nodes, int ranks_per_node, Bytes step) {
  // NCCL 2.19-2.28 src/enqueue.cc calcCollChunking: a tree moves one buffer step per chunk (chunkSteps 1);
  // only LL128's adapts to the call (since 2.19; the Simple tree's halving by tree depth was dropped):
  // halved while a channel holds fewer than nstepsLL128 x 64 / ppn chunks and the chunk is over 128 KiB,
  // then fewer than nstepsLL128 x 16 / ppn down to 32 KiB, nstepsLL128 = 1 + log2i(nNodes) + 0.1 ppn (the
  // division on the left is integer, as NCCL's).
  double chunk = step.value();
  if (p != Protocol::ll128 || nodes < 1 || ranks_per_node < 1 || chunk <= 0) return step;
  int log2_nodes = 0;
  while ((2 << log2_nodes) <= nodes) ++log2_nodes;
  const double ppn = ranks_per_node;
  const double steps = 1 + log2_nodes + 0.1 * ppn;
  const double bytes = std::max(0.0, per_channel.value());
  while (std::floor(bytes / chunk) < steps * 64 / ppn && chunk > 131072) chunk /= 2;
  while (std::floor(bytes / chunk) < steps * 16 / ppn && chunk > 32768) chunk /= 2;
  return Bytes(chunk);
}

Bytes wire_bytes(const NcclModelParams& m, Protocol p, const Topology& topo, const PlannedFlow& f) {
  if (f.nvls_heads > 0 && f.nvls_call_bytes.value() > 0) {  // NCCL's NVLS chunking (nvls_pipeline.hpp)
    const double share = f.bytes.value() / f.nvls_call_bytes.value();
    const double fill = (f.nvls_tree_levels > 0 ? nvls_tree_fill_bytes(m, f.nvls_call_bytes, f.nvls_heads,
                                                                       f.nvls_tree_nodes, f.nvls_tree_levels)
                                                : nvls_fill_bytes(m, f.nvls_call_bytes, f.nvls_heads))
                             .value() *
                         share;
    return Bytes((f.bytes.value() + fill) / flow_efficiency(m, p, topo, f));
  }
  // A tree all-reduce under NCCL's size correction pays no fill of its own: treeCorrectionFactor is
  // NCCL's measured rate of its trees at each size, start-up included (it climbs from 0.4-0.6 at 0.5-8 MiB
  // to 1 as a fill would amortise). Charging a fill as well counted the start-up twice, and a larger call
  // could take less time (a 4-server H100 tree/Simple: 2.6 ms at 32 MiB, 2.5 ms at 64 MiB). Without the
  // correction the fill is charged in NCCL's own tree chunk (tree_chunk_bytes; a flow is one tree set,
  // about one channel). pipeline_chunk_bytes 0 (an ideal model): no fill.
  const bool tree_ar = f.tree_nodes > 0;
  const double model_chunk = m.pipeline_chunk_bytes[static_cast<size_t>(p)];
  const double own = tree_ar ? tree_chunk_bytes(p, f.bytes, f.tree_nodes, f.tree_ranks_per_node, Bytes(model_chunk)).value()
                             : model_chunk;
  const double chunk = std::min(own, f.step_bytes.value());
  const int depth = tree_ar && m.tree_size_correction ? 0 : std::min(f.pipeline_steps - 1, std::max(0, m.pipeline_depth));
  const double fill = depth > 0 ? depth * std::max(0.0, chunk) : 0.0;
  return Bytes((f.bytes.value() + fill) / flow_efficiency(m, p, topo, f));
}

Time reduction_time(const Topology& topo, Bytes reduced) {
  const Rate hbm = topo.gpu_spec().hbm_bandwidth;
  if (reduced.value() <= 0 || hbm.value() <= 0) return Time::zero();
  return transfer_time(reduced * 3.0, hbm);
}

namespace {
// predict_time()'s per-link bytes of a phase: summed per link in the order they are added.
struct PhaseLoad {
  std::vector<double> bytes;     // by LinkId
  std::vector<uint8_t> seen;     // by LinkId
  std::vector<uint32_t> touched;  // links added to, in first-touch order
  void fit(size_t links) {
    if (bytes.size() < links) {
      bytes.resize(links, 0.0);
      seen.resize(links, 0);
    }
  }
  void add(uint32_t l, double b) {
    if (!seen[l]) {
      seen[l] = 1;
      touched.push_back(l);
    }
    bytes[l] += b;
  }
  void clear() {
    for (const uint32_t l : touched) {
      bytes[l] = 0.0;
      seen[l] = 0;
    }
    touched.clear();
  }
};
}  // namespace

Time predict_time(const NcclModelParams& m, LatencyClass c, Protocol p, const FlowPlan& plan, const Topology& topo,
                  HwKind intra) {
  Time total = software_latency(m, c, p, plan, intra);
  // Bytes per link of each phase, each link's summed in flow order, in a per-link scratch array (a
  // sort of (link, bytes) pairs cost a fifth of preparing a large plan's calls); the maximum over
  // links does not depend on the order they are visited in.
  thread_local PhaseLoad load;
  load.fit(topo.links().size());
  load.clear();  // in case a previous call threw half way
  std::vector<double> wires;
  for (const auto& ph : plan.phases) {
    wires.clear();
    Time lat = Time::zero();
    for (const auto& f : ph.flows) {
      const double wire = wire_bytes(m, p, topo, f).value();
      wires.push_back(wire);
      for (LinkId l : f.links) load.add(l.value, wire);
      lat = std::max(lat, f.latency);
    }
    double worst = 0.0;  // seconds
    const std::vector<double> caps = flow_caps(m, p, plan, ph, wires, topo, intra);
    for (size_t i = 0; i < caps.size(); ++i) worst = std::max(worst, wires[i] / caps[i]);
    for (const uint32_t l : load.touched) worst = std::max(worst, load.bytes[l] / topo.link(LinkId(l)).bandwidth.value());
    load.clear();
    total += std::max(lat + Time::from_seconds(worst), reduction_time(topo, ph.reduce_bytes_per_gpu));
  }
  return total;
}

}  // namespace plansim
