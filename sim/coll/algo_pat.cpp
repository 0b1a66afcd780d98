// PAT (Parallel Aggregated Trees): NCCL's all-gather and reduce-scatter for one GPU per server (NCCL 2.23+,
// NCCL_ALGO_PAT; S. Jeaugey, "PAT: a new algorithm for all-gather and reduce-scatter operations at scale",
// arXiv 2506.20252). It is Bruck's algorithm with its dimensions reversed: each rank's block is broadcast
// over a binomial tree shifted to start at that rank, the far dimension first, so the long-distance
// transfers carry one block and the near ones many; reduce-scatter runs the same trees upside down.
// With L = ceil(log2 n) dimensions, all-gather runs d = L-1 .. 0: rank r sends rank r + 2^d (mod n) every
// block b whose offset o = (r - b) mod n is a multiple of 2^(d+1) with o + 2^d < n. Reduce-scatter runs
// d = 0 .. L-1: rank r sends rank r - 2^d the partial sums of the blocks whose offset o has
// o mod 2^(d+1) = 2^d (the subtree below o, summed in the earlier steps). A step moves
// ceil((n - 2^d) / 2^(d+1)) blocks per rank, n - 1 blocks in all: a rank sends (n-1)/n S, as a ring, in
// ceil(log2 n) steps instead of n - 1. NCCL bounds what a step aggregates by its buffers (the paper's
// B_max); at the sizes where PAT is faster than a ring that bound does not bind, so the steps are the
// unbounded ones. NCCL enables PAT only with one GPU per node (src/enqueue.cc ncclPatEnable: nNodes ==
// nRanks), Simple only; its latency and bandwidth factor are tuning.cc's (nccl_model.hpp, LatencyClass::pat).
// Step-synchronous: one phase per step, one flow per rank.
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"

namespace plansim {
namespace {

int dimensions(int n) {
  int L = 0;
  while ((1 << L) < n) ++L;
  return L;
}

// Blocks each rank moves in dimension d (both directions).
int blocks_in_step(int n, int d) {
  const int half = 1 << d, span = half * 2;
  return n > half ? (n - half + span - 1) / span : 0;
}

class PatAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "pat"; }
  std::string_view description() const override {
    return "NCCL PAT: Bruck's algorithm with reversed dimensions, log2(n) steps (all-gather, reduce-scatter at "
           "one GPU per server, Simple)";
  }
  bool supports(CollOp op) const override { return op == CollOp::all_gather || op == CollOp::reduce_scatter; }
  LatencyClass latency_class() const override { return LatencyClass::pat; }
  std::string_view requirement() const override {
    return "2 or more ranks, each in a server (NVLink domain) of its own";
  }
  // NCCL's nNodes == nRanks, a multi-server NVLink domain counting as one node (MNNVL).
  bool applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const override {
    return supports(op) && ranks.size() >= 2 && islands_spanned(topo, ranks) == static_cast<int>(ranks.size());
  }

  ChunkSchedule expand(CollOp op, const GroupShape& g) const override {
    const int n = g.n, L = dimensions(n);
    ChunkSchedule s{n, n, n, {}};
    const bool gather = op == CollOp::all_gather;
    for (int k = 0; k < L; ++k) {
      const int d = gather ? L - 1 - k : k, half = 1 << d, span = half * 2;
      ChunkStep& st = s.add_step();
      for (int r = 0; r < n; ++r)
        for (int o = gather ? 0 : half; gather ? o + half < n : o < n; o += span) {
          const int b = ((r - o) % n + n) % n;
          st.xfers.push_back({r, gather ? (r + half) % n : (r - half + n) % n, b, !gather});
        }
    }
    return s;
  }

  // Every rank's (n-1)/n S leaves its server through the NIC its inter-server traffic takes (one rank per
  // server: every peer is on another one), at no more than the best protocol x link efficiency x PAT's:
  // the bytes on that NIC's up-link bound the time from below, whatever the phases and the latencies.
  // `auto` skips PAT where a ring is already faster (large sizes) without lowering it.
  Time time_lower_bound(const LoweringContext& ctx, const NcclModelParams& m) const override {
    const int n = ctx.n();
    if (n < 2) return Time::zero();
    const Topology& topo = *ctx.topo;
    Rate slowest = Rate(0);
    for (GpuId r : ctx.ranks) {
      const NodeId nic = topo.node(topo.gpu_node(r)).nic;
      if (!nic.valid()) return Time::zero();
      Rate out = Rate(0);
      for (LinkId l : topo.out_links(nic))
        if (topo.island(topo.link(l).dst) != topo.island(topo.gpu_node(r))) out = out + topo.link(l).bandwidth;
      if (out.value() <= 0) return Time::zero();
      if (slowest.value() <= 0 || out < slowest) slowest = out;
    }
    double eff = 0;
    for (double e : {m.nvlink_efficiency, m.pcie_efficiency, m.network_efficiency, m.other_efficiency}) eff = std::max(eff, e);
    double proto = 0;
    for (double e : m.protocol_efficiency) proto = std::max(proto, e);
    eff *= proto * std::max(0.0, m.pat_efficiency);
    if (eff <= 0) return Time::zero();
    // A hair below: Time's picoseconds round, and the bound must not exceed what predict_time() gives.
    return Time::from_seconds(transfer_time(ctx.bytes * ((n - 1.0) / n / eff), slowest).seconds() * (1 - 1e-9));
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    const int n = ctx.n(), L = dimensions(n);
    FlowPlan plan;
    plan.nranks = n;
    plan.nnodes = islands_spanned(*ctx.topo, ctx.ranks);
    if (n <= 1) return plan;
    const bool gather = ctx.op == CollOp::all_gather;
    const Bytes block = ctx.bytes / n;
    for (int k = 0; k < L; ++k) {
      const int d = gather ? L - 1 - k : k, half = 1 << d;
      const Bytes step = block * blocks_in_step(n, d);
      PlannedPhase ph;
      bool inter = false;
      for (int r = 0; r < n; ++r) {
        const GpuId from = ctx.ranks[static_cast<size_t>(r)];
        const GpuId to = ctx.ranks[static_cast<size_t>(gather ? (r + half) % n : (r - half + n) % n)];
        PlannedFlow f;
        append_route(*ctx.topo, from, to, f.links);
        f.bytes = step;
        f.latency = route_latency(*ctx.topo, from, to);
        f.pat = true;
        inter = inter || ctx.topo->island(ctx.topo->gpu_node(from)) != ctx.topo->island(ctx.topo->gpu_node(to));
        ph.flows.push_back(std::move(f));
      }
      if (!gather) ph.reduce_bytes_per_gpu = step;
      (inter ? plan.steps_inter : plan.steps_intra) += 1;
      plan.phases.push_back(std::move(ph));
    }
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_pat_algorithm() { return std::make_unique<PatAlgorithm>(); }

}  // namespace plansim
