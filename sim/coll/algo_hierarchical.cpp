// Hierarchical all-reduce: intra-node ring reduce-scatter (local rank l ends with slice l reduced over
// its node), inter-node ring all-reduce of slice l among the nodes' local ranks l (one ring per local
// index, all in parallel), intra-node ring all-gather. Needs the same number of ranks on every node.
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/core/assert.hpp"

namespace plansim {
namespace {

class HierarchicalAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "hierarchical"; }
  std::string_view description() const override {
    return "intra-node reduce-scatter -> inter-node all-reduce per local rank -> intra-node all-gather";
  }
  bool supports(CollOp op) const override { return op == CollOp::all_reduce; }
  bool shape_ok(const GroupShape& g) const override { return g.n == 0 || !g.uniform_hosts().empty(); }

  bool in_auto(CollOp /*op*/) const override { return false; }

  ChunkSchedule expand(CollOp /*op*/, const GroupShape& g) const override {
    const auto hosts = g.uniform_hosts();
    const int H = static_cast<int>(hosts.size());
    const int L = H > 0 ? static_cast<int>(hosts.front().size()) : 0;
    ChunkSchedule s{g.n, g.n, std::max(1, L * H), {}};
    if (g.n <= 1) return s;
    // Chunk l*H + h: slice l (local rank l's after the intra reduce-scatter), sub-slice h (host h's).
    std::vector<std::vector<int>> super(static_cast<size_t>(L));
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) super[static_cast<size_t>(l)].push_back(l * H + h);
    size_t t = 0;
    for (const auto& host : hosts) t = std::max(t, ring_reduce_scatter(s, 0, host, super));
    if (L == 1) t = 0;
    size_t t2 = t;
    for (int l = 0; l < L; ++l) {
      std::vector<int> ring;
      std::vector<std::vector<int>> groups;
      for (int h = 0; h < H; ++h) {
        ring.push_back(hosts[static_cast<size_t>(h)][static_cast<size_t>(l)]);
        groups.push_back({l * H + h});
      }
      const size_t mid = ring_reduce_scatter(s, t, ring, groups);
      t2 = std::max(t2, ring_all_gather(s, mid, ring, groups));
    }
    for (const auto& host : hosts) ring_all_gather(s, t2, host, super);
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    if (ctx.n() <= 1) return plan;
    std::vector<std::vector<GpuId>> hosts;
    for (const auto& h : ctx.shape().uniform_hosts()) {
      hosts.emplace_back();
      for (int r : h) hosts.back().push_back(ctx.ranks[static_cast<size_t>(r)]);
    }
    const int H = static_cast<int>(hosts.size());
    const int L = static_cast<int>(hosts.front().size());
    const double intra = static_cast<double>(L - 1) / L;
    const double inter = 2.0 * (H - 1) / H / L;
    auto intra_phase = [&](bool reduce) {
      PlannedPhase ph;
      for (const auto& h : hosts)
        for (int c = 0; c < ctx.channels; ++c)
          ph.flows.push_back(ring_flow(*ctx.topo, h, ctx.bytes * (intra / ctx.channels), L - 1));
      if (reduce) ph.reduce_bytes_per_gpu = ctx.bytes * intra;
      plan.phases.push_back(std::move(ph));
    };
    if (L > 1) intra_phase(true);
    if (H > 1) {
      PlannedPhase ph;
      for (int l = 0; l < L; ++l) {
        std::vector<GpuId> ring;
        for (const auto& h : hosts) ring.push_back(h[static_cast<size_t>(l)]);
        for (int c = 0; c < ctx.channels; ++c)
          ph.flows.push_back(ring_flow(*ctx.topo, ring, ctx.bytes * (inter / ctx.channels), 2 * (H - 1)));
      }
      ph.reduce_bytes_per_gpu = ctx.bytes * (static_cast<double>(H - 1) / H / L);
      plan.phases.push_back(std::move(ph));
    }
    if (L > 1) intra_phase(false);
    plan.steps_intra = 2 * (L - 1);
    plan.steps_inter = 2 * (H - 1);
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_hierarchical_algorithm() { return std::make_unique<HierarchicalAlgorithm>(); }

}  // namespace plansim
