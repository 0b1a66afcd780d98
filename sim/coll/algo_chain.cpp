// Chain (pipeline) broadcast and reduce: the ranks form a line starting (broadcast) or ending (reduce)
// at the root; the buffer is cut into pipeline chunks that follow each other down the line, so the
// time is ~ S/B + (n-1) hop latencies (NCCL runs broadcast/reduce this way along its rings: patterns
// PipelineFrom / PipelineTo, src/device/broadcast.h). Each of NCCL's channels runs its own ring from the
// root, so across servers the lines are the ring orders (nccl_ring_orders) rotated to start at the root,
// each carrying 1/L of the buffer and crossing each server boundary through a different GPU's NIC: one
// line through everything sent all of it through one NIC per server (32 DGX H100: 46 GB/s busbw, an
// eighth of their 8 NICs).
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/core/assert.hpp"

namespace plansim {
namespace {

constexpr int kPipelineChunks = 4;  // chunks in the data-movement view (timing is a continuous pipeline)

// The lines, in rank indices: each channel order rotated to start at the root.
std::vector<std::vector<int>> lines_from_root(const GroupShape& g) {
  std::vector<std::vector<int>> lines = nccl_ring_orders(g);
  for (auto& o : lines) {
    const auto at = std::find(o.begin(), o.end(), g.root);
    std::rotate(o.begin(), at, o.end());
  }
  return lines;
}

class ChainAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "chain"; }
  std::string_view description() const override {
    return "pipelined chain from/to the root (broadcast, reduce), as NCCL's ring broadcast/reduce";
  }
  bool supports(CollOp op) const override { return op == CollOp::broadcast || op == CollOp::reduce; }

  // Line k carries chunks k*C .. k*C+C-1 (C = kPipelineChunks): chunk j of it crosses hop h at step h + j.
  // Broadcast hops go root -> end; reduce hops go end -> root.
  ChunkSchedule expand(CollOp op, const GroupShape& g) const override {
    const auto lines = lines_from_root(g);
    const int K = static_cast<int>(lines.size());
    ChunkSchedule s{g.n, g.n, K * kPipelineChunks, {}};
    const int hops = g.n - 1;
    for (int k = 0; k < K; ++k) {
      const auto& line = lines[static_cast<size_t>(k)];
      for (int j = 0; j < kPipelineChunks; ++j)
        for (int h = 0; h < hops; ++h) {
          ChunkStep& st = step_at(s, static_cast<size_t>(h + j));
          const int c = k * kPipelineChunks + j;
          if (op == CollOp::broadcast)
            st.xfers.push_back({line[static_cast<size_t>(h)], line[static_cast<size_t>(h + 1)], c, false});
          else
            st.xfers.push_back({line[static_cast<size_t>(hops - h)], line[static_cast<size_t>(hops - h - 1)], c, true});
        }
    }
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    const int n = ctx.n();
    if (n <= 1) return plan;
    const auto lines = lines_from_root(ctx.shape());
    const double K = static_cast<double>(lines.size());
    PlannedPhase ph;
    for (const auto& line : lines) {
      PlannedFlow f;
      // The first bytes cross every hop of the line: the sum of the hops' route latencies (a line across
      // servers has a network hop per server among NVLink ones), not n - 1 times the slowest.
      Time path = Time::zero();
      for (int h = 0; h + 1 < n; ++h) {
        GpuId a = ctx.ranks[static_cast<size_t>(line[static_cast<size_t>(h)])];
        GpuId b = ctx.ranks[static_cast<size_t>(line[static_cast<size_t>(h + 1)])];
        if (ctx.op == CollOp::reduce) std::swap(a, b);
        const size_t first = f.links.size();
        append_route(*ctx.topo, a, b, f.links);
        for (size_t i = first; i < f.links.size(); ++i) path += ctx.topo->link(f.links[i]).latency;
      }
      f.bytes = ctx.bytes / K;
      f.latency = path;
      f.pipeline_steps = n - 1;
      f.step_bytes = ctx.bytes / K;
      ph.flows.push_back(std::move(f));
    }
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
