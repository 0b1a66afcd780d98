#include "sim/coll/nccl_channels.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/net/flow_network.hpp"

namespace plansim {

int channels_for_topology(HwKind intra) { return intra == HwKind::nvlink ? 16 : 2; }

int channels_used(const NcclModelParams& m, Protocol p, Bytes bytes, int nranks, int open) {
  const auto pi = static_cast<size_t>(p);
  double per_channel = m.max_threads[pi] * m.thread_threshold[pi];
  if (p == Protocol::ll) per_channel *= std::max(1, nranks);  // tuning.cc: ring LL threshold x nRanks
  if (per_channel <= 0) return open;
  const double fit = std::floor(bytes.value() / per_channel);
  return std::clamp(static_cast<int>(std::min(fit, 1e9)), 1, std::max(1, open));
}

double ll_max_GBps(const NcclModelParams& m, int nodes) {
  if (nodes <= 1) return m.ll_max_GBps;
  return m.ll_max_multi_node_GBps[nodes == 2 ? 0 : 1];
}

int latency_rounds(const NcclModelParams& m, Protocol p, const FlowPlan& plan, HwKind intra) {
  if (p != Protocol::simple || !plan.channel_capped || plan.nranks < 2 || intra != HwKind::nvlink) return 1;
  if (plan.ring_plateau) return 1;  // across servers NCCL's plateau factor is the Simple ring's extra latency
  return std::max(1, m.simple_slices_per_chunk);
}

std::vector<double> flow_caps(const NcclModelParams& m, Protocol p, const FlowPlan& plan, const PlannedPhase& ph,
                              const std::vector<double>& wire, const Topology& topo, HwKind intra) {
  std::vector<double> caps(ph.flows.size(), FlowNetwork::kNoCap);
  if (!plan.channel_capped || ph.flows.empty()) return caps;
  const int open = m.nccl_channels > 0 ? m.nccl_channels : channels_for_topology(intra);
  const int used = channels_used(m, p, plan.call_bytes, plan.nranks, open);
  const double share = static_cast<double>(used) / open;
  // Bus-bandwidth cap of the protocol over the channels used (bytes/s of payload), split over the flows.
  double bus_cap = FlowNetwork::kNoCap;
  const double per_ch = m.channel_cap_GBps[static_cast<size_t>(p)];
  if (per_ch > 0) bus_cap = used * per_ch * 1e9;
  if (p == Protocol::ll) {
    const double ll_max = ll_max_GBps(m, plan.nnodes);
    if (ll_max > 0) bus_cap = std::min(bus_cap, ll_max * 1e9);
  }
  // Each flow's rate alone on the network: its share of its most loaded link.
  std::vector<std::pair<uint32_t, double>> load;
  if (share < 1.0) {
    for (size_t i = 0; i < ph.flows.size(); ++i)
      for (LinkId l : ph.flows[i].links) load.emplace_back(l.value, wire[i]);
    std::sort(load.begin(), load.end());
    std::vector<std::pair<uint32_t, double>> summed;
    for (const auto& [l, b] : load) {
      if (summed.empty() || summed.back().first != l) summed.emplace_back(l, 0.0);
      summed.back().second += b;
    }
    load = std::move(summed);
  }
  const double flows = static_cast<double>(ph.flows.size());
  for (size_t i = 0; i < ph.flows.size(); ++i) {
    const PlannedFlow& f = ph.flows[i];
    double cap = FlowNetwork::kNoCap;
    if (bus_cap < FlowNetwork::kNoCap && f.bytes.value() > 0) cap = bus_cap / flows * (wire[i] / f.bytes.value());
    if (share < 1.0 && !f.links.empty() && wire[i] > 0) {
      double t = 0;  // seconds alone
      for (LinkId l : f.links) {
        auto it = std::lower_bound(load.begin(), load.end(), std::make_pair(l.value, -1.0));
        t = std::max(t, it->second / topo.link(l).bandwidth.value());
      }
      if (t > 0) cap = std::min(cap, share * wire[i] / t);
    }
    caps[i] = cap;
  }
  return caps;
}

}  // namespace plansim
