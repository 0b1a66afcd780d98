// Ring (NCCL's default for bandwidth): all-reduce = reduce-scatter + all-gather over a ring, 2(n-1)
// steps, each rank sending 2(n-1)/n of the buffer. Each channel is one pipelined flow over all n hops.
// Across servers NCCL builds its channels' rings so that they leave each server through different
// GPUs (hence different NICs): with L ranks per server there are L ring orders, order k visiting each
// server's ranks rotated by k, each carrying 1/L of the data (one server: the ranks in order).
#include <algorithm>
#include <set>

#include "sim/coll/algorithm.hpp"

namespace plansim {
namespace {

class RingAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "ring"; }
  std::string_view description() const override {
    return "pipelined ring over the ranks in order (NCCL Ring); all-reduce = reduce-scatter + all-gather";
  }
  bool supports(CollOp op) const override {
    return op == CollOp::all_reduce || op == CollOp::all_gather || op == CollOp::reduce_scatter;
  }

  ChunkSchedule expand(CollOp op, const GroupShape& g) const override {
    const auto ord = nccl_ring_orders(g);
    const int K = static_cast<int>(ord.size());
    // Order k handles chunks k*n .. k*n+n-1; in it, chunk k*n+r is owned by rank r (so chunk c's
    // owner is c mod n: fine for all-reduce; reduce-scatter/all-gather use ownership c / K... see below).
    ChunkSchedule s{g.n, g.n, g.n * K, {}};
    for (int k = 0; k < K; ++k) {
      std::vector<std::vector<int>> groups;
      // The reference executor's ownership: chunk c belongs to rank c / K; give rank r chunk r*K + k.
      for (int r : ord[static_cast<size_t>(k)]) groups.push_back({r * K + k});
      size_t next = 0;
      if (op != CollOp::all_gather) next = ring_reduce_scatter(s, 0, ord[static_cast<size_t>(k)], groups);
      if (op != CollOp::reduce_scatter) ring_all_gather(s, next, ord[static_cast<size_t>(k)], groups);
    }
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    const int n = ctx.n();
    FlowPlan plan;
    if (n <= 1) return plan;
    const bool twice = ctx.op == CollOp::all_reduce;
    const int steps = (twice ? 2 : 1) * (n - 1);
    const double per_hop = static_cast<double>(steps) / n;  // fraction of S crossing each hop
    PlannedPhase ph;
    const auto ord = nccl_ring_orders(ctx.shape());
    const int K = static_cast<int>(ord.size());
    const int per_order = std::max(1, (ctx.channels + K - 1) / K);
    for (const auto& o : ord) {
      std::vector<GpuId> ring;
      for (int r : o) ring.push_back(ctx.ranks[static_cast<size_t>(r)]);
      for (int c = 0; c < per_order; ++c)
        ph.flows.push_back(ring_flow(*ctx.topo, ring, ctx.bytes * (per_hop / (K * per_order)), steps));
    }
    if (ctx.op != CollOp::all_gather) ph.reduce_bytes_per_gpu = ctx.bytes * (static_cast<double>(n - 1) / n);
    plan.phases.push_back(std::move(ph));
    // Network steps as NCCL's tuner counts them (src/graph/tuning.cc ncclTopoTuneModel, NCCL 2.19-2.27):
    // nInterSteps = allreduce ? (nNodes > 1 ? 2 * nNodes : 0) : nNodes - 1. An all-reduce's 2(n-1) steps
    // go round the ring twice, and each round crosses every server boundary, nNodes of them (the ring
    // closes back to the first server); 2.18 and earlier counted 2(nNodes - 1). All-gather and
    // reduce-scatter (one round of n - 1 steps) keep nNodes - 1.
    const int nodes = distinct_hosts(*ctx.topo, ctx.ranks);
    plan.steps_inter = nodes <= 1 ? 0 : twice ? 2 * nodes : nodes - 1;
    plan.steps_intra = steps - plan.steps_inter;
    plan.ring_plateau = twice && nodes > 1;
    plan.channel_capped = true;
    plan.call_bytes = ctx.bytes;
    plan.nranks = n;
    plan.nnodes = islands_spanned(*ctx.topo, ctx.ranks);
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_ring_algorithm() { return std::make_unique<RingAlgorithm>(); }

}  // namespace plansim
