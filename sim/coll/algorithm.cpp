#include "sim/coll/algorithm.hpp"

#include <algorithm>
#include <set>

#include "sim/core/assert.hpp"

namespace plansim {

GroupShape LoweringContext::shape() const {
  GroupShape g{n(), root, {}};
  for (GpuId r : ranks) g.host_of_rank.push_back(topo->host_of(r));
  return g;
}

bool CollectiveAlgorithm::applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const {
  if (!supports(op)) return false;
  GroupShape g{static_cast<int>(ranks.size()), 0, {}};
  for (GpuId r : ranks) g.host_of_rank.push_back(topo.host_of(r));
  return shape_ok(g);
}

FlowPlan CollectiveAlgorithm::lower(const LoweringContext& ctx) const {
  return lower_steps(expand(ctx.op, ctx.shape()), *ctx.topo, ctx.ranks, ctx.bytes);
}

void AlgorithmRegistry::add(std::unique_ptr<CollectiveAlgorithm> a) {
  PLANSIM_ASSERT(find(a->name()) == nullptr, "algorithm registered twice");
  algos_.push_back(std::move(a));
}

const CollectiveAlgorithm* AlgorithmRegistry::find(std::string_view name) const {
  for (const auto& a : algos_)
    if (a->name() == name) return a.get();
  return nullptr;
}

std::vector<std::string> AlgorithmRegistry::names() const {
  std::vector<std::string> out;
  for (const auto& a : algos_) out.emplace_back(a->name());
  return out;
}

ChunkStep& step_at(ChunkSchedule& s, size_t index) {
  while (s.steps.size() <= index) s.add_step();
  return s.steps[index];
}

size_t ring_reduce_scatter(ChunkSchedule& s, size_t first, const std::vector<int>& p,
                           const std::vector<std::vector<int>>& groups) {
  const size_t m = p.size();
  PLANSIM_ASSERT(groups.size() == m, "one chunk group per ring participant");
  // Step k: participant i sends group (i - k - 1) mod m to i + 1, which reduces it; group j therefore
  // starts at j + 1 and, after m - 1 steps, ends complete at j.
  for (size_t k = 0; k + 1 < m; ++k) {
    ChunkStep& st = step_at(s, first + k);
    for (size_t i = 0; i < m; ++i) {
      const size_t g = (i + 2 * m - k - 1) % m;
      for (int c : groups[g]) st.xfers.push_back({p[i], p[(i + 1) % m], c, true});
    }
  }
  return first + (m > 0 ? m - 1 : 0);
}

size_t ring_all_gather(ChunkSchedule& s, size_t first, const std::vector<int>& p,
                       const std::vector<std::vector<int>>& groups) {
  const size_t m = p.size();
  PLANSIM_ASSERT(groups.size() == m, "one chunk group per ring participant");
  // Step k: participant i forwards group (i - k) mod m (its own at k = 0) to i + 1.
  for (size_t k = 0; k + 1 < m; ++k) {
    ChunkStep& st = step_at(s, first + k);
    for (size_t i = 0; i < m; ++i) {
      const size_t g = (i + m - k) % m;
      for (int c : groups[g]) st.xfers.push_back({p[i], p[(i + 1) % m], c, false});
    }
  }
  return first + (m > 0 ? m - 1 : 0);
}

PlannedFlow ring_flow(const Topology& topo, const std::vector<GpuId>& r, Bytes bytes, int steps) {
  PlannedFlow f;
  const size_t m = r.size();
  f.links.reserve(m * 2);
  // A slice's steps go round the ring hop after hop, so its path crosses each hop steps / m times: the
  // route latency it pays is the ring's total hop latency x steps / m (not the slowest hop x steps, which
  // charged every NVLink step of a multi-server ring the network hop's latency).
  Time around = Time::zero();
  for (size_t i = 0; i < m; ++i) {
    append_route(topo, r[i], r[(i + 1) % m], f.links);
    around += route_latency(topo, r[i], r[(i + 1) % m]);
  }
  f.bytes = bytes;
  f.latency = m > 0 ? Time::from_seconds(around.seconds() * steps / static_cast<double>(m)) : Time::zero();
  f.pipeline_steps = 1;  // no fill: see algorithm.hpp
  f.step_bytes = steps > 0 ? bytes / steps : bytes;
  return f;
}

int islands_spanned(const Topology& topo, std::span<const GpuId> ranks) {
  std::set<int> islands;
  for (GpuId r : ranks) islands.insert(topo.island(topo.gpu_node(r)));
  return static_cast<int>(islands.size());
}

std::vector<std::vector<int>> nccl_ring_orders(const GroupShape& g) {
  const auto hosts = g.uniform_hosts();
  std::vector<std::vector<int>> out;
  if (hosts.size() <= 1) {
    out.emplace_back();
    for (int i = 0; i < g.n; ++i) out.back().push_back(i);
    return out;
  }
  const size_t L = hosts.front().size();
  for (size_t k = 0; k < L; ++k) {
    out.emplace_back();
    for (const auto& h : hosts)
      for (size_t i = 0; i < L; ++i) out.back().push_back(h[(i + k) % L]);
  }
  return out;
}

int distinct_hosts(const Topology& topo, std::span<const GpuId> ranks) {
  std::set<int> h;
  for (GpuId r : ranks) h.insert(topo.host_of(r));
  return static_cast<int>(h.size());
}

}  // namespace plansim
