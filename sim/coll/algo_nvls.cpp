// NVLS (NVLink SHARP): the NVSwitch reduces in the switch. Each GPU sends its buffer to the switch once
// (the switch sums the n copies of each slice) and receives the reduced buffer once (multicast), so a
// GPU's link carries S each way whatever n is. Applicable only when every GPU of the group is wired to
// the same NVSwitch(es) marked nvls: true. The switch is participant n in the data view; with several
// such switches each GPU spreads its traffic evenly over them.
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/core/assert.hpp"

namespace plansim {
namespace {

// NVLS-capable switches directly connected to every GPU of the group, in node-id order.
std::vector<NodeId> common_nvls_switches(const Topology& topo, std::span<const GpuId> ranks) {
  std::vector<NodeId> out;
  if (ranks.empty()) return out;
  for (LinkId l : topo.out_links(topo.gpu_node(ranks.front()))) {
    const Node& sw = topo.node(topo.link(l).dst);
    if (sw.kind != NodeKind::nvswitch || !sw.nvls) continue;
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

class NvlsAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "nvls"; }
  std::string_view description() const override {
    return "in-switch reduction (NVLink SHARP): each GPU sends its data once, receives the sum once";
  }
  bool supports(CollOp op) const override { return op == CollOp::all_reduce; }
  LatencyClass latency_class() const override { return LatencyClass::nvls; }
  bool applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const override {
    return supports(op) && ranks.size() >= 2 && !common_nvls_switches(topo, ranks).empty();
  }

  ChunkSchedule expand(CollOp /*op*/, const GroupShape& g) const override {
    const int n = g.n, sw = g.n;
    ChunkSchedule s{n, n + 1, std::max(1, n), {}};
    if (n <= 1) return s;
    ChunkStep& up = s.add_step();
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) up.xfers.push_back({r, sw, c, r != 0});  // first copy, the rest reduce
    ChunkStep& down = s.add_step();
    for (int r = 0; r < n; ++r)
      for (int c = 0; c < n; ++c) down.xfers.push_back({sw, r, c, false});
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    if (ctx.n() <= 1) return plan;
    const auto sws = common_nvls_switches(*ctx.topo, ctx.ranks);
    PLANSIM_ASSERT(!sws.empty(), "nvls lowered on a group without a common NVLS switch");
    PlannedPhase ph;
    const Bytes share = ctx.bytes / static_cast<double>(sws.size());
    for (GpuId g : ctx.ranks)
      for (NodeId sw : sws) {
        PlannedFlow f;
        const NodeId gn = ctx.topo->gpu_node(g);
        auto up = ctx.topo->route(gn, sw);
        f.links.assign(up.begin(), up.end());
        auto down = ctx.topo->route(sw, gn);
        f.links.insert(f.links.end(), down.begin(), down.end());
        for (LinkId l : f.links) f.latency += ctx.topo->link(l).latency;
        f.bytes = share;
        f.in_switch = true;
        // NCCL's NVLS pipeline (nvls_pipeline.hpp): one head per rank of the node, fill by its chunking.
        f.nvls_heads = ctx.n();
        f.nvls_call_bytes = ctx.bytes;
        ph.flows.push_back(std::move(f));
      }
    plan.phases.push_back(std::move(ph));
    plan.steps_intra = 1;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_nvls_algorithm() { return std::make_unique<NvlsAlgorithm>(); }

}  // namespace plansim
