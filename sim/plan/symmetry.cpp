#include "sim/plan/symmetry.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/coll/collective_runner.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/plan/replica_planes.hpp"
#include "sim/plan/runner_comm.hpp"

namespace plansim {

bool tp_links_private(const CompiledPlan& plan, const Topology& topo) {
  // Replicas of a folded plan: a group whose members all have programs is replayed for each (ranks
  // shifted by j·fold_stride), the others name every member already; send/recv always is.
  auto copies = [&](const Group& g) { return g.simulated_members == g.ranks.size() ? plan.fold : 1; };
  auto shifted = [&](uint32_t r, int j) { return r + static_cast<uint32_t>(j * plan.fold_stride); };
  // Which TP group (copy) uses each link (-1 none); a link two of them use is shared between them.
  std::vector<int64_t> owner(topo.links().size(), -1);
  std::vector<bool> tp_link(topo.links().size(), false);
  bool any_tp = false;
  std::vector<LinkId> scratch;
  for (size_t gi = 0; gi < plan.groups.size(); ++gi) {
    const Group& g = plan.groups[gi];
    if (g.dim != Dim::tp || g.ranks.size() < 2) continue;
    any_tp = true;
    for (int j = 0; j < copies(g); ++j) {
      const auto id = static_cast<int64_t>(gi) * plan.fold + j;
      for (uint32_t a : g.ranks)
        for (uint32_t b : g.ranks)
          if (a != b)
            for (LinkId l : topo.route_uncached(GpuId(shifted(a, j)), GpuId(shifted(b, j)), scratch)) {
              if (owner[l.index()] >= 0 && owner[l.index()] != id) return false;
              owner[l.index()] = id;
              tp_link[l.index()] = true;
            }
    }
  }
  if (!any_tp) return true;
  // Where every TP link joins two nodes of one island (TP inside servers or NVLink domains), a route
  // between islands can touch one only inside its end islands: its other links each have a fabric
  // switch at one end. Topology::route_island_links gives those parts without walking the fabric
  // (tests/topo/test_route_island_links.cpp checks them against route()).
  bool tp_inside_islands = true;
  for (size_t l = 0; l < tp_link.size() && tp_inside_islands; ++l) {
    if (!tp_link[l]) continue;
    const Link& k = topo.link(LinkId::from(l));
    tp_inside_islands = topo.island(k.src) >= 0 && topo.island(k.src) == topo.island(k.dst);
  }
  std::vector<LinkId> ends;
  auto clean = [&](uint32_t a, uint32_t b) {
    const std::span<const LinkId> links = tp_inside_islands && topo.route_island_links(GpuId(a), GpuId(b), ends)
                                              ? std::span<const LinkId>(ends)
                                              : topo.route(GpuId(a), GpuId(b));
    for (LinkId l : links)
      if (tp_link[l.index()]) return false;
    return true;
  };
  for (const Group& g : plan.groups) {
    if (g.dim == Dim::tp || g.ranks.size() < 2) continue;
    for (int j = 0; j < copies(g); ++j)
      for (size_t i = 1; i < g.ranks.size(); ++i) {
        const uint32_t first = shifted(g.ranks[0], j), a = shifted(g.ranks[i - 1], j), b = shifted(g.ranks[i], j),
                       m = shifted(g.ranks[i], j);
        if (!clean(first, m) || !clean(m, first) || !clean(a, b) || !clean(b, a)) return false;
      }
  }
  // Every send of a pair of ranks takes the same route: check each distinct pair once.
  std::vector<uint64_t> pairs;
  for (const Program& p : plan.programs)
    for (const ProgramOp& op : p.ops)
      if (op.kind == OpKind::send) pairs.push_back(uint64_t{p.rank} << 32 | op.peer);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  for (const uint64_t pair : pairs)
    for (int j = 0; j < plan.fold; ++j)
      if (!clean(shifted(static_cast<uint32_t>(pair >> 32), j), shifted(static_cast<uint32_t>(pair), j))) return false;
  return true;
}

std::vector<int> MemoizedTpComm::shape_of(std::span<const GpuId> ranks) const {
  std::vector<int> shape;
  const int host0 = topo_.host_of(ranks.front());
  for (GpuId g : ranks) {
    shape.push_back(topo_.host_of(g) - host0);
    shape.push_back(topo_.node(topo_.gpu_node(g)).local_index);
  }
  return shape;
}

int MemoizedTpComm::shape_id(const CommRequest& r) {
  int* known = nullptr;
  if (r.group != kNoGroup && r.replica == 0) {
    if (r.group >= group_shape_.size()) group_shape_.resize(r.group + 1, -1);
    known = &group_shape_[r.group];
    if (*known >= 0) return *known;
  }
  const int id = shapes_.emplace(shape_of(r.ranks), static_cast<int>(shapes_.size())).first->second;
  if (known != nullptr) *known = id;
  return id;
}

Time MemoizedTpComm::time_of(const CommRequest& r) {
  const Key key{static_cast<int>(r.op), r.bytes.value(), shape_id(r)};
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    Simulation scratch;
    FlowNetwork net(scratch, topo_);
    CollectiveRunner runner(net, nccl_);
    RunnerComm comm(runner);
    comm.start(r, [] {});
    scratch.run();
    it = cache_.emplace(key, scratch.now()).first;
  } else {
    ++hits_;
  }
  return it->second;
}

void MemoizedTpComm::start(const CommRequest& r, std::function<void()> on_done) {
  if (r.dim != Dim::tp) {
    inner_.start(r, std::move(on_done));
    return;
  }
  const Time t = time_of(r);
  if (r.copies > 1 && checked_.emplace(r.group, static_cast<int>(r.op), r.bytes.value()).second) {
    // The replicas' copies (not issued) must take the same time, or they would not land with it.
    std::vector<GpuId> shifted;
    for (uint32_t j = 1; j < r.copies; ++j) {
      shifted.clear();
      for (GpuId g : r.ranks) shifted.push_back(GpuId(g.value + j * r.copy_stride));
      CommRequest copy = r;
      copy.ranks = shifted;
      copy.replica = j;
      if (time_of(copy) != t)
        throw PlaneMismatch(fmt::format("replica {}'s copy of a TP collective takes {:.3f} us, replica 0's {:.3f} us", j,
                                        time_of(copy).micros(), t.micros()));
    }
  }
  sim_.after(t, std::move(on_done));
}

}  // namespace plansim
