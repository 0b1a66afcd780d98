// Direct / pairwise: every rank sends each peer its share in one step, all pairs at once (NCCL's
// all-to-all, gather and scatter are grouped point-to-point sends). One flow per pair, routed as NCCL routes
// point-to-point traffic between servers (PXN, pxn.hpp).
#include "sim/coll/algorithm.hpp"
#include "sim/coll/pxn.hpp"

namespace plansim {
namespace {

class DirectAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "direct"; }
  std::string_view description() const override {
    return "pairwise point-to-point in one step (all-to-all, gather, scatter)";
  }
  bool supports(CollOp op) const override {
    return op == CollOp::all_to_all || op == CollOp::gather || op == CollOp::scatter;
  }

  ChunkSchedule expand(CollOp op, const GroupShape& g) const override {
    const int n = g.n;
    ChunkSchedule s{n, n, op == CollOp::all_to_all ? n * n : n, {}};
    if (op == CollOp::all_to_all) s.chunks_per_buffer = n;  // each rank sends S/n to every peer
    if (n <= 1) return s;
    ChunkStep& st = s.add_step();
    if (op == CollOp::all_to_all) {
      for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b)
          if (a != b) st.xfers.push_back({a, b, a * n + b, false});
    } else {
      for (int r = 0; r < n; ++r) {
        if (r == g.root) continue;
        if (op == CollOp::gather) st.xfers.push_back({r, g.root, r, false});
        else st.xfers.push_back({g.root, r, r, false});
      }
    }
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    const PxnRelays relays(*ctx.topo, ctx.ranks);
    return lower_steps(expand(ctx.op, ctx.shape()), *ctx.topo, ctx.ranks, ctx.bytes, &relays);
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_direct_algorithm() { return std::make_unique<DirectAlgorithm>(); }

}  // namespace plansim
