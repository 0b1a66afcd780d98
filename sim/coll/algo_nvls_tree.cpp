// NVLS-Tree: NCCL's multi-node all-reduce on NVLS servers (NCCL_ALGO_NVLS_TREE, src/device/all_reduce.h
// RunWorkColl<AllReduce, NVLS_TREE, Simple>, 2.19-2.27). Inside each server it is the one-node NVLS
// all-reduce (algo_nvls.cpp): every rank is the head of 1/L of the buffer (L GPUs per server), the head
// loads its share reduced by the switch (multimem.ld_reduce); across servers the heads of the same local
// index form NCCL's double binary tree over the servers (src/graph/connect.cc connectNvls /
// ncclGetDtree; each tree carries half of the channels, so half of each head's share): a head adds its
// children's partial sums, sends the result to its parent, receives the total from it and passes it down;
// then it stores the total through the switch (multimem.st), which multicasts it to every rank.
// Data per GPU: NVLink S + S/L each way (as one-node NVLS); network per head and tree: S / 2L to the
// parent and S / 2L back, per child likewise, so a server with two children in one tree moves 2 S each way
// and on 2 servers S (tuning.cc, 2.19-2.27: NVLS_TREE bw = min(bwIntra, nNodes <= 2 ? bwInter : bwInter / 2)).
// Latency (tuning.cc): intraLat + 2 log2i(nNodes) x interLat, Simple only. Its pipeline fill is NVLS-Tree's
// chunking (nvls_pipeline.hpp). NCCL runs it only across servers (algoEnable[NVLS_TREE] = 0 on one node
// and on multi-node NVLink, "MNNVL: NVLS not yet supported"), with NVLS in every server (>= 3 GPUs each,
// nvls_support.hpp); this model also needs the same number of GPUs in every server.
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nvls_support.hpp"
#include "sim/core/assert.hpp"

namespace plansim {
namespace {

int log2_floor(int v) {  // NCCL's log2i
  int l = 0;
  while ((v >>= 1) > 0) ++l;
  return l;
}

int depth(const std::vector<int>& par, int h) {
  int d = 0;
  for (int p = par[static_cast<size_t>(h)]; p >= 0; p = par[static_cast<size_t>(p)]) ++d;
  return d;
}

class NvlsTreeAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "nvls_tree"; }
  std::string_view description() const override {
    return "NVLS inside each server + NCCL's double binary tree over the servers (NCCL NVLS_TREE, Simple)";
  }
  bool supports(CollOp op) const override { return op == CollOp::all_reduce; }
  LatencyClass latency_class() const override { return LatencyClass::nvls_tree; }
  bool shape_ok(const GroupShape& g) const override {
    const auto hosts = g.uniform_hosts();
    return hosts.size() >= 2 && hosts.front().size() >= kMinNvlsGpus;
  }
  bool applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const override {
    if (!supports(op)) return false;
    LoweringContext ctx{&topo, op, {ranks.begin(), ranks.end()}, Bytes(0), 0, 1};
    return nvls_in_every_server(topo, ranks, ctx.shape().uniform_hosts());
  }

  // Participants: the ranks, then one switch per server (n + host index). Chunk c (2L of them) is on
  // tree c / L, its head the rank of local index c % L in each server.
  ChunkSchedule expand(CollOp /*op*/, const GroupShape& g) const override {
    const auto hosts = g.uniform_hosts();
    const int H = static_cast<int>(hosts.size()), L = H > 0 ? static_cast<int>(hosts.front().size()) : 0;
    ChunkSchedule s{g.n, g.n + H, std::max(1, 2 * L), {}};
    if (H < 2) return s;
    auto sw = [&](int h) { return g.n + h; };
    auto head = [&](int h, int c) { return hosts[static_cast<size_t>(h)][static_cast<size_t>(c % L)]; };
    ChunkStep& up = s.add_step();  // every rank's chunks reach its server's switch, which sums them
    for (int h = 0; h < H; ++h)
      for (size_t i = 0; i < hosts[static_cast<size_t>(h)].size(); ++i)
        for (int c = 0; c < 2 * L; ++c) up.xfers.push_back({hosts[static_cast<size_t>(h)][i], sw(h), c, i != 0});
    ChunkStep& load = s.add_step();  // multimem.ld_reduce: the head of chunk c gets its server's sum
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < 2 * L; ++c) load.xfers.push_back({sw(h), head(h, c), c, false});
    std::vector<std::vector<int>> par(2);
    int maxd = 0;
    for (int t = 0; t < 2; ++t) {
      par[static_cast<size_t>(t)] = nccl_dtree_parents(H, t);
      for (int h = 0; h < H; ++h) maxd = std::max(maxd, depth(par[static_cast<size_t>(t)], h));
    }
    const size_t first = s.steps.size();
    for (int t = 0; t < 2; ++t)
      for (int h = 0; h < H; ++h) {
        const int p = par[static_cast<size_t>(t)][static_cast<size_t>(h)];
        if (p < 0) continue;
        const int d = depth(par[static_cast<size_t>(t)], h);
        for (int c = t * L; c < (t + 1) * L; ++c) {
          // up the tree deepest first, then down from the root
          step_at(s, first + static_cast<size_t>(maxd - d)).xfers.push_back({head(h, c), head(p, c), c, true});
          step_at(s, first + static_cast<size_t>(maxd + d - 1)).xfers.push_back({head(p, c), head(h, c), c, false});
        }
      }
    ChunkStep& store = s.add_step();  // multimem.st: each head stores the total through its switch
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < 2 * L; ++c) store.xfers.push_back({head(h, c), sw(h), c, false});
    ChunkStep& down = s.add_step();  // the switch multicasts every chunk to its server's ranks
    for (int h = 0; h < H; ++h)
      for (int r : hosts[static_cast<size_t>(h)])
        for (int c = 0; c < 2 * L; ++c) down.xfers.push_back({sw(h), r, c, false});
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    const auto hosts = ctx.shape().uniform_hosts();
    const int H = static_cast<int>(hosts.size());
    PLANSIM_ASSERT(H >= 2, "nvls_tree lowered on a group inside one server");
    const int L = static_cast<int>(hosts.front().size());
    const double S = ctx.bytes.value();
    int levels = 0;
    std::vector<std::vector<int>> par(2);
    for (int t = 0; t < 2; ++t) {
      par[static_cast<size_t>(t)] = nccl_dtree_parents(H, t);
      for (int h = 0; h < H; ++h) levels = std::max(levels, depth(par[static_cast<size_t>(t)], h));
    }
    auto mark = [&](PlannedFlow& f) {
      f.nvls_heads = L;
      f.nvls_call_bytes = ctx.bytes;
      f.nvls_tree_levels = levels;
      f.nvls_tree_nodes = H;
    };
    PlannedPhase ph;
    // Inside each server: NVLS's S + S/L per GPU and direction, spread over the server's NVLS switches.
    std::vector<int> children(static_cast<size_t>(H), 0);
    for (int h = 0; h < H; ++h) {
      std::vector<GpuId> members;
      for (int r : hosts[static_cast<size_t>(h)]) members.push_back(ctx.ranks[static_cast<size_t>(r)]);
      const size_t first = ph.flows.size();
      append_nvls_flows(*ctx.topo, members, ctx.bytes, ph.flows);
      for (size_t i = first; i < ph.flows.size(); ++i) mark(ph.flows[i]);
    }
    // Across servers: per tree edge and local index, the child's head sends S / 2L up and gets S / 2L down.
    for (int t = 0; t < 2; ++t)
      for (int h = 0; h < H; ++h) {
        const int p = par[static_cast<size_t>(t)][static_cast<size_t>(h)];
        if (p < 0) continue;
        ++children[static_cast<size_t>(p)];
        for (int i = 0; i < L; ++i) {
          const GpuId a = ctx.ranks[static_cast<size_t>(hosts[static_cast<size_t>(h)][static_cast<size_t>(i)])];
          const GpuId b = ctx.ranks[static_cast<size_t>(hosts[static_cast<size_t>(p)][static_cast<size_t>(i)])];
          PlannedFlow f;
          append_route(*ctx.topo, a, b, f.links);
          append_route(*ctx.topo, b, a, f.links);
          f.latency = route_latency(*ctx.topo, a, b) * 2.0;
          f.bytes = Bytes(S / (2.0 * L));
          mark(f);
          ph.flows.push_back(std::move(f));
        }
      }
    // A head adds its children's shares (S / 2L each) to its server's sum.
    ph.reduce_bytes_per_gpu = Bytes(S / (2.0 * L) * *std::max_element(children.begin(), children.end()));
    plan.phases.push_back(std::move(ph));
    plan.steps_intra = 1;                     // intraLat once (tuning.cc)
    plan.steps_inter = 2 * log2_floor(H);     // 2 log2i(nNodes) x interLat (tuning.cc)
    plan.call_bytes = ctx.bytes;
    plan.nranks = ctx.n();
    plan.nnodes = H;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_nvls_tree_algorithm() { return std::make_unique<NvlsTreeAlgorithm>(); }

}  // namespace plansim
