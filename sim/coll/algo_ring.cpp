// Ring (NCCL's default for bandwidth): all-reduce = reduce-scatter + all-gather over a ring, 2(n-1)
// steps, each rank sending 2(n-1)/n of the buffer. Several channels run the same ring concurrently,
// each carrying 1/channels of the data; each channel is one pipelined flow over all n hops.
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
    ChunkSchedule s{g.n, g.n, g.n, {}};
    std::vector<int> p;
    std::vector<std::vector<int>> groups;
    for (int i = 0; i < g.n; ++i) {
      p.push_back(i);
      groups.push_back({i});
    }
    size_t next = 0;
    if (op != CollOp::all_gather) next = ring_reduce_scatter(s, next, p, groups);
    if (op != CollOp::reduce_scatter) ring_all_gather(s, next, p, groups);
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
    for (int c = 0; c < ctx.channels; ++c)
      ph.flows.push_back(ring_flow(*ctx.topo, ctx.ranks, ctx.bytes * (per_hop / ctx.channels), steps));
    if (ctx.op != CollOp::all_gather) ph.reduce_bytes_per_gpu = ctx.bytes * (static_cast<double>(n - 1) / n);
    plan.phases.push_back(std::move(ph));
    const int nodes = distinct_hosts(*ctx.topo, ctx.ranks);
    plan.steps_inter = (twice ? 2 : 1) * (nodes - 1);
    plan.steps_intra = steps - plan.steps_inter;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_ring_algorithm() { return std::make_unique<RingAlgorithm>(); }

}  // namespace plansim
