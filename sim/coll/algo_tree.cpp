// Double binary tree (NCCL Tree, Sanders et al.): two binary trees such that a member is a leaf in one
// and an inner node in the other; each tree carries half the buffer, reduced up to its root and broadcast
// back down, pipelined. Tree 1 is NCCL's ncclGetBtree shape (parent of r: clear r's lowest set bit b and
// set 2b, or just clear b if that is out of range); tree 2 mirrors it (n even) or shifts it by one (n odd),
// as ncclGetDtree does. Broadcast/reduce use one tree rooted at the root.
//
// An all-reduce across servers is built as NCCL builds it (src/graph/connect.cc connectTrees over
// src/graph/trees.cc ncclGetDtree, 2.19-2.27): the double binary tree is over the servers, and inside each
// server a channel's ranks form a chain hanging from the server's tree head, so a server's inner nodes
// are its chain and only the head talks to other servers. NCCL's channels leave each server through
// different GPUs (hence different NICs; the tree graph's channels are the ring graph's, search.cc): with
// L ranks per server there are L chain orders, order k starting at local index k (as the ring's orders,
// algo_ring.cpp), each carrying 1/L of each tree's half. A flat tree over all ranks instead sent every
// channel through the same few GPUs' NICs: 64 DGX A100 servers peaked at 11 GB/s algbw, an eighth of
// their 8 NICs.
#include <algorithm>

#include "sim/coll/algorithm.hpp"

namespace plansim {
namespace {

// Parent in the btree over 0..n-1 rooted at 0 (-1 for the root).
int btree_parent(int r, int n) {
  if (r == 0) return -1;
  const int bit = r & -r;
  int up = (r ^ bit) | (bit << 1);
  if (up >= n) up = r ^ bit;
  return up;
}

// Parents of the two trees in rank space; `which` 0 or 1. For a single tree rooted at `root`
// (broadcast/reduce) the ranks are relabelled so that root is the btree's rank 0.
std::vector<int> tree_parents(int n, int which, int root) {
  std::vector<int> par(static_cast<size_t>(n));
  auto to_v = [&](int r) {
    if (which == 0) return (r - root + n) % n;
    return n % 2 == 0 ? n - 1 - r : (r + n - 1) % n;  // mirror / shift (self-consistent inverse below)
  };
  auto from_v = [&](int v) {
    if (which == 0) return (v + root) % n;
    return n % 2 == 0 ? n - 1 - v : (v + 1) % n;
  };
  for (int r = 0; r < n; ++r) {
    const int p = btree_parent(to_v(r), n);
    par[static_cast<size_t>(r)] = p < 0 ? -1 : from_v(p);
  }
  return par;
}

std::vector<int> depths(const std::vector<int>& par) {
  std::vector<int> d(par.size(), 0);
  for (size_t r = 0; r < par.size(); ++r)
    for (int p = par[r]; p >= 0; p = par[static_cast<size_t>(p)]) ++d[r];
  return d;
}

}  // namespace

std::vector<int> nccl_dtree_parents(int n, int which) { return tree_parents(n, which, 0); }

std::vector<std::vector<int>> nccl_tree_parents(CollOp op, const GroupShape& g) {
  const bool ar = op == CollOp::all_reduce;
  const auto hosts = ar ? g.uniform_hosts() : std::vector<std::vector<int>>{};
  std::vector<std::vector<int>> sets;
  if (hosts.size() < 2) {  // one server, uneven servers, or a rooted op: the tree over the ranks
    for (int t = 0; t < (ar ? 2 : 1); ++t) sets.push_back(tree_parents(g.n, ar ? t : 0, ar ? 0 : g.root));
    return sets;
  }
  const int H = static_cast<int>(hosts.size()), L = static_cast<int>(hosts.front().size());
  for (int t = 0; t < 2; ++t) {
    const std::vector<int> server_parent = nccl_dtree_parents(H, t);
    for (int k = 0; k < L; ++k) {
      std::vector<int> par(static_cast<size_t>(g.n), -1);
      auto member = [&](int h, int i) { return hosts[static_cast<size_t>(h)][static_cast<size_t>((i + k) % L)]; };
      for (int h = 0; h < H; ++h) {
        for (int i = 1; i < L; ++i) par[static_cast<size_t>(member(h, i))] = member(h, i - 1);
        const int up = server_parent[static_cast<size_t>(h)];
        if (up >= 0) par[static_cast<size_t>(member(h, 0))] = member(up, 0);
      }
      sets.push_back(std::move(par));
    }
  }
  return sets;
}

namespace {

class TreeAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "tree"; }
  std::string_view description() const override {
    return "double binary tree (NCCL Tree): reduce up + broadcast down, half the data per tree; across "
           "servers a tree over the servers with a chain inside each";
  }
  bool supports(CollOp op) const override {
    return op == CollOp::all_reduce || op == CollOp::broadcast || op == CollOp::reduce;
  }
  LatencyClass latency_class() const override { return LatencyClass::tree; }
  // NCCL's tuner runs broadcast and reduce on Ring only (tuning.cc ncclTopoTuneModel, 2.19-2.28: "if (coll ==
  // ncclFuncBroadcast && a != NCCL_ALGO_RING) continue", the same for Reduce): a rooted tree runs when named.
  bool in_auto(CollOp op) const override { return op == CollOp::all_reduce; }

  // Chunk c is carried by parent set c (nccl_tree_parents), reduced up deepest first and sent back down.
  ChunkSchedule expand(CollOp op, const GroupShape& g) const override {
    const int n = g.n;
    const auto sets = nccl_tree_parents(op, g);
    ChunkSchedule s{n, n, static_cast<int>(sets.size()), {}};
    for (size_t t = 0; t < sets.size(); ++t) {
      const auto& par = sets[t];
      const auto dep = depths(par);
      const int maxd = n > 0 ? *std::max_element(dep.begin(), dep.end()) : 0;
      const int c = static_cast<int>(t);
      for (int r = 0; r < n; ++r) {
        const int p = par[static_cast<size_t>(r)];
        if (p < 0) continue;
        const int d = dep[static_cast<size_t>(r)];
        if (op != CollOp::broadcast) step_at(s, static_cast<size_t>(maxd - d)).xfers.push_back({r, p, c, true});
        if (op == CollOp::all_reduce)
          step_at(s, static_cast<size_t>(maxd + d - 1)).xfers.push_back({p, r, c, false});
        if (op == CollOp::broadcast) step_at(s, static_cast<size_t>(d - 1)).xfers.push_back({p, r, c, false});
      }
    }
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    const int n = ctx.n();
    if (n <= 1) return plan;
    const bool ar = ctx.op == CollOp::all_reduce;
    const auto sets = nccl_tree_parents(ctx.op, ctx.shape());
    const Bytes per_set = ctx.bytes / static_cast<double>(sets.size());
    PlannedPhase ph;
    std::vector<int> children(static_cast<size_t>(n), 0);  // summed over the sets: each child is a reduction
    for (const auto& par : sets) {
      const auto dep = depths(par);
      PlannedFlow f;
      std::vector<Time> edge(static_cast<size_t>(n), Time::zero());  // rank -> its parent
      for (int r = 0; r < n; ++r) {
        const int p = par[static_cast<size_t>(r)];
        if (p < 0) continue;
        const GpuId a = ctx.ranks[static_cast<size_t>(r)], b = ctx.ranks[static_cast<size_t>(p)];
        if (ctx.op != CollOp::broadcast) {  // the route up, read once for its links and its latency
          const size_t first = f.links.size();
          append_route(*ctx.topo, a, b, f.links);
          Time lat = Time::zero();
          for (size_t i = first; i < f.links.size(); ++i) lat += ctx.topo->link(f.links[i]).latency;
          edge[static_cast<size_t>(r)] = lat;
        } else {
          edge[static_cast<size_t>(r)] = route_latency(*ctx.topo, a, b);
        }
        if (ctx.op != CollOp::reduce) append_route(*ctx.topo, b, a, f.links);
        ++children[static_cast<size_t>(p)];
      }
      // The first bytes cross the tree along its longest root path (up, and down again for an
      // all-reduce): the sum of that path's route latencies, not its depth times the slowest edge —
      // a tree across servers has one or two network edges on a path of NVLink ones.
      std::vector<Time> to_root(static_cast<size_t>(n), Time::zero());
      std::vector<int> by_depth(static_cast<size_t>(n));
      for (int r = 0; r < n; ++r) by_depth[static_cast<size_t>(r)] = r;
      std::stable_sort(by_depth.begin(), by_depth.end(),
                       [&](int x, int y) { return dep[static_cast<size_t>(x)] < dep[static_cast<size_t>(y)]; });
      Time deepest = Time::zero();
      for (const int r : by_depth) {
        const int p = par[static_cast<size_t>(r)];
        if (p < 0) continue;
        to_root[static_cast<size_t>(r)] = to_root[static_cast<size_t>(p)] + edge[static_cast<size_t>(r)];
        deepest = std::max(deepest, to_root[static_cast<size_t>(r)]);
      }
      const int maxd = *std::max_element(dep.begin(), dep.end());
      f.bytes = per_set;
      f.latency = deepest * (ar ? 2 : 1);
      f.pipeline_steps = std::max(1, (ar ? 2 : 1) * maxd);
      f.step_bytes = per_set;
      if (ar) f.tree_allreduce_call_bytes = ctx.bytes;
      ph.flows.push_back(std::move(f));
    }
    const int nodes = distinct_hosts(*ctx.topo, ctx.ranks);
    if (ar)
      for (PlannedFlow& f : ph.flows) {
        f.tree_nodes = nodes;
        f.tree_ranks_per_node = n / nodes;
      }
    if (ctx.op != CollOp::broadcast)
      ph.reduce_bytes_per_gpu = per_set * *std::max_element(children.begin(), children.end());
    plan.phases.push_back(std::move(ph));
    // NCCL's tree latency: 2((ppn-1) intra + log2(nodes) inter) steps (tuning.cc).
    int lg = 0;
    while ((1 << lg) < nodes) ++lg;
    plan.steps_intra = (ar ? 2 : 1) * (n / nodes - 1);
    plan.steps_inter = (ar ? 2 : 1) * lg;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_tree_algorithm() { return std::make_unique<TreeAlgorithm>(); }

}  // namespace plansim
