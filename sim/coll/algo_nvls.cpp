// NVLS (NVLink SHARP): the NVSwitch reduces in the switch. NCCL's one-node NVLS all-reduce
// (src/device/all_reduce.h, RunWorkColl<AllReduce, NVLS, Simple>, 2.19-2.27) makes every rank the head of
// 1/n of the buffer: each rank's buffer is reachable through the switch (the scatter into the NVLS
// buffer), the head of chunk h loads it with multimem.ld_reduce (the switch sums the n copies and sends
// the head S/n), then stores the sum with multimem.st (S/n up), which the switch multicasts to every
// rank. So a GPU's link carries S + S/n each way (its buffer read by all heads + its store; the reduced
// load + the multicast copies): algbw = link rate x n / (n + 1), which is why NVLS gains little at 4
// GPUs and most at 8 (H100/H200 nccl-tests: NVLS ~ ring busbw at 2-4 GPUs, algbw 258 -> 270 GB/s from
// 5 to 8: nccl_calibration_facts h100_ring_vs_nvls_by_gpu_count). Applicable only when every GPU of the
// group is wired to the same NVSwitch(es) marked nvls: true, and the group has at least 3 GPUs: NCCL
// leaves NVLS off for a communicator with 2 GPUs or fewer in its node (src/transport/nvls.cc ncclNvlsInit,
// NCCL 2.18-2.27: `gpuCount <= 2` -> nvlsSupport = 0; with multi-node NVLink, `clique.size <= 2`), so
// neither `auto` nor NCCL_ALGO=NVLS runs it there. The switch is participant n in the data view; with
// several such switches each GPU spreads its traffic evenly over them.
#include <algorithm>
#include <set>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nvls_support.hpp"
#include "sim/core/assert.hpp"

namespace plansim {

std::vector<NodeId> common_nvls_switches(const Topology& topo, std::span<const GpuId> ranks) {
  std::vector<NodeId> out;
  if (ranks.empty()) return out;
  for (LinkId l : topo.out_links(topo.gpu_node(ranks.front()))) {
    const Node& sw = topo.node(topo.link(l).dst);
    if (sw.kind != NodeKind::nvswitch || !sw.in_switch_reduction) continue;
    bool all = true;
    for (GpuId g : ranks) {
      bool found = false;
      for (LinkId m : topo.out_links(topo.gpu_node(g))) found = found || topo.link(m).dst == sw.id;
      all = all && found;
    }
    if (all && (out.empty() || out.back() != sw.id)) out.push_back(sw.id);
  }
  return out;
}

bool nvls_in_every_server(const Topology& topo, std::span<const GpuId> ranks,
                          const std::vector<std::vector<int>>& hosts) {
  if (hosts.size() < 2 || hosts.front().size() < kMinNvlsGpus) return false;
  std::set<int> islands;
  for (GpuId r : ranks) islands.insert(topo.island(topo.gpu_node(r)));
  if (islands.size() < 2) return false;  // one NVLink domain: plain NVLS (NCCL's MNNVL)
  std::vector<GpuId> members;
  for (const auto& h : hosts) {
    members.clear();
    for (int r : h) members.push_back(ranks[static_cast<size_t>(r)]);
    if (common_nvls_switches(topo, members).empty()) return false;
  }
  return true;
}

void append_nvls_flows(const Topology& topo, std::span<const GpuId> members, Bytes call, std::vector<PlannedFlow>& out) {
  const auto sws = common_nvls_switches(topo, members);
  PLANSIM_ASSERT(!sws.empty(), "NVLS flows for GPUs without a common NVLS switch");
  const double m = static_cast<double>(members.size());
  const Bytes share = Bytes(call.value() * (1.0 + 1.0 / m) / static_cast<double>(sws.size()));
  for (GpuId g : members)
    for (NodeId sw : sws) {
      PlannedFlow f;
      const NodeId gn = topo.gpu_node(g);
      auto up = topo.route(gn, sw);
      f.links.assign(up.begin(), up.end());
      auto down = topo.route(sw, gn);
      f.links.insert(f.links.end(), down.begin(), down.end());
      for (LinkId l : f.links) f.latency += topo.link(l).latency;
      f.bytes = share;
      f.in_switch = true;
      // NCCL's NVLS pipeline (nvls_pipeline.hpp): one head per member, fill by its chunking.
      f.nvls_heads = static_cast<int>(members.size());
      f.nvls_call_bytes = call;  // fill: the call's, x this flow's bytes / the call's
      out.push_back(std::move(f));
    }
}

namespace {

class NvlsAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "nvls"; }
  std::string_view description() const override {
    return "in-switch reduction (NVLink SHARP): each GPU sends its data once, receives the sum once";
  }
  bool supports(CollOp op) const override { return op == CollOp::all_reduce; }
  LatencyClass latency_class() const override { return LatencyClass::nvls; }
  std::string_view requirement() const override { return kNvlsRequirement; }
  bool applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const override {
    return supports(op) && ranks.size() >= kMinNvlsGpus && !common_nvls_switches(topo, ranks).empty();
  }

  ChunkSchedule expand(CollOp /*op*/, const GroupShape& g) const override {
    const int n = g.n, sw = g.n;
    ChunkSchedule s{n, n + 1, std::max(1, n), {}};
    if (n <= 1) return s;
    ChunkStep& up = s.add_step();  // every rank's chunks reach the switch, which sums them
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) up.xfers.push_back({r, sw, c, r != 0});  // first copy, the rest reduce
    ChunkStep& load = s.add_step();  // multimem.ld_reduce: head c receives the sum of chunk c
    for (int c = 0; c < n; ++c) load.xfers.push_back({sw, c, c, false});
    ChunkStep& store = s.add_step();  // multimem.st: head c stores it back through the switch
    for (int c = 0; c < n; ++c) store.xfers.push_back({c, sw, c, false});
    ChunkStep& down = s.add_step();  // the switch multicasts every chunk to every rank
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) down.xfers.push_back({sw, r, c, false});
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    if (ctx.n() <= 1) return plan;
    PlannedPhase ph;
    append_nvls_flows(*ctx.topo, ctx.ranks, ctx.bytes, ph.flows);
    plan.phases.push_back(std::move(ph));
    plan.steps_intra = 1;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_nvls_algorithm() { return std::make_unique<NvlsAlgorithm>(); }

}  // namespace plansim
