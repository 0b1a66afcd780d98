// Chain (pipeline) broadcast and reduce: the ranks form a line starting (broadcast) or ending (reduce)
// at the root; the buffer is cut into pipeline chunks that follow each other down the line, so the
// time is ~ S/B + (n-1) hop latencies (NCCL runs broadcast/reduce this way along its ring).
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/core/assert.hpp"

namespace plansim {
namespace {

constexpr int kPipelineChunks = 4;  // chunks in the data-movement view (timing is a continuous pipeline)

// Ranks in line order: root, root+1, ..., root-1.
std::vector<int> line_from_root(int n, int root) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back((root + i) % n);
  return v;
}

class ChainAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "chain"; }
  std::string_view description() const override {
    return "pipelined chain from/to the root (broadcast, reduce), as NCCL's ring broadcast/reduce";
  }
  bool supports(CollOp op) const override { return op == CollOp::broadcast || op == CollOp::reduce; }

  ChunkSchedule expand(CollOp op, const GroupShape& g) const override {
    ChunkSchedule s{g.n, g.n, kPipelineChunks, {}};
    const auto line = line_from_root(g.n, g.root);
    const int hops = g.n - 1;
    // Chunk j crosses hop h at step h + j. Broadcast hops go root -> end; reduce hops go end -> root.
    for (int j = 0; j < kPipelineChunks; ++j)
      for (int h = 0; h < hops; ++h) {
        ChunkStep& st = step_at(s, static_cast<size_t>(h + j));
        if (op == CollOp::broadcast)
          st.xfers.push_back({line[static_cast<size_t>(h)], line[static_cast<size_t>(h + 1)], j, false});
        else
          st.xfers.push_back({line[static_cast<size_t>(hops - h)], line[static_cast<size_t>(hops - h - 1)], j, true});
      }
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    const int n = ctx.n();
    if (n <= 1) return plan;
    const auto line = line_from_root(n, ctx.root);
    PlannedFlow f;
    Time hop = Time::zero();
    for (int h = 0; h + 1 < n; ++h) {
      GpuId a = ctx.ranks[static_cast<size_t>(line[static_cast<size_t>(h)])];
      GpuId b = ctx.ranks[static_cast<size_t>(line[static_cast<size_t>(h + 1)])];
      if (ctx.op == CollOp::reduce) std::swap(a, b);
      append_route(*ctx.topo, a, b, f.links);
      hop = std::max(hop, route_latency(*ctx.topo, a, b));
    }
    f.bytes = ctx.bytes;
    f.latency = hop * (n - 1);
    f.pipeline_steps = n - 1;
    f.step_bytes = ctx.bytes;
    PlannedPhase ph;
    ph.flows.push_back(std::move(f));
    if (ctx.op == CollOp::reduce) ph.reduce_bytes_per_gpu = ctx.bytes;
    plan.phases.push_back(std::move(ph));
    const int nodes = distinct_hosts(*ctx.topo, ctx.ranks);
    plan.steps_inter = nodes - 1;
    plan.steps_intra = n - 1 - plan.steps_inter;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_chain_algorithm() { return std::make_unique<ChainAlgorithm>(); }

}  // namespace plansim
