#include <algorithm>
#include <optional>

#include "sim/coll/collective_runner_impl.hpp"
#include "sim/coll/pxn.hpp"
#include "sim/core/assert.hpp"

namespace plansim {

using coll_runner::kNoLink;

void CollectiveRunner::Impl::first_positions(const Topology& topo, std::span<const GpuId> ranks, bool by_host, std::vector<uint32_t>& out) {
  auto& first = by_host ? host_first : gpu_first;
  auto& stamps = by_host ? host_stamp : gpu_stamp;
  const size_t size = by_host ? static_cast<size_t>(topo.num_hosts()) : topo.num_gpus();
  if (stamps.size() < size) {
    stamps.resize(size, 0);
    first.resize(size, 0);
  }
  if (++stamp == 0) {  // wrapped: no stale stamp may match
    std::fill(gpu_stamp.begin(), gpu_stamp.end(), 0);
    std::fill(host_stamp.begin(), host_stamp.end(), 0);
    stamp = 1;
  }
  out.clear();
  for (uint32_t i = 0; i < ranks.size(); ++i) {
    const auto key = by_host ? static_cast<size_t>(topo.host_of(ranks[i])) : ranks[i].index();
    if (stamps[key] != stamp) {
      stamps[key] = stamp;
      first[key] = i;
    }
    out.push_back(first[key]);
  }
}

bool CollectiveRunner::same_shape(PreparedCall a, PreparedCall b, const std::function<bool(LinkId, LinkId)>& pair) const {
  PLANSIM_ASSERT(a.index < impl_->prepared.size() && b.index < impl_->prepared.size(),
                 "collective runner: unknown prepared call");
  const Prepared& x = *impl_->prepared[a.index];
  const Prepared& y = *impl_->prepared[b.index];
  if (x.software_latency != y.software_latency || x.flows.size() != y.flows.size() || x.reduce != y.reduce) return false;
  const auto& px = x.choice.plan.phases;
  const auto& py = y.choice.plan.phases;
  for (size_t ph = 0; ph < x.flows.size(); ++ph) {
    if (x.flows[ph].size() != y.flows[ph].size()) return false;
    for (size_t f = 0; f < x.flows[ph].size(); ++f) {
      const PreparedFlow& fx = x.flows[ph][f];
      const PreparedFlow& fy = y.flows[ph][f];
      if (fx.bytes != fy.bytes || fx.latency != fy.latency || fx.cap != fy.cap) return false;
      const auto& lx = px[ph].flows[f].links;
      const auto& ly = py[ph].flows[f].links;
      if (lx.size() != ly.size()) return false;
      for (size_t i = 0; i < lx.size(); ++i)
        if (!pair(lx[i], ly[i])) return false;
    }
  }
  return true;
}


PreparedCall CollectiveRunner::remap(PreparedCall a,
                                     const std::function<bool(std::span<const LinkId>, std::vector<LinkId>&)>& remap) {
  return rewrite_phases(a, [&remap](std::span<const FlowShape> flows, FlowRewrite& out) {
    for (size_t f = 0; f < flows.size(); ++f)
      if (!remap(flows[f].links, out[f].emplace())) return false;
    return true;
  });
}

namespace {
void phase_shapes(const coll_runner::Prepared& x, size_t ph, std::vector<CollectiveRunner::FlowShape>& out) {
  out.clear();
  const auto& planned = x.choice.plan.phases[ph].flows;
  for (size_t f = 0; f < x.flows[ph].size(); ++f) {
    const PreparedFlow& pf = x.flows[ph][f];
    out.push_back(CollectiveRunner::FlowShape{planned[f].links, pf.bytes, pf.latency, pf.cap});
  }
}
}  // namespace

PreparedCall CollectiveRunner::rewrite_phases(
    PreparedCall a, const std::function<bool(std::span<const FlowShape>, FlowRewrite&)>& rewrite) {
  PLANSIM_ASSERT(a.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const Prepared& x = *impl_->prepared[a.index];
  auto p = std::make_unique<Prepared>(x);
  // Not findable by prepare(): it answers for no call of its own.
  p->ranks.clear();
  p->algorithm_request = "\x01remapped";
  std::vector<FlowShape> shapes;
  FlowRewrite out;
  for (size_t ph = 0; ph < x.flows.size(); ++ph) {
    phase_shapes(x, ph, shapes);
    out.assign(shapes.size(), std::nullopt);
    if (!rewrite(shapes, out)) return PreparedCall{};
    // Kept flows keep their planned entry (links as lowered: for_each_flow_links and the bound read
    // them), so that both vectors stay index-aligned; their routes are the rewritten links.
    auto& flows = p->flows[ph];
    auto& planned = p->choice.plan.phases[ph].flows;
    size_t kept = 0;
    for (size_t f = 0; f < out.size(); ++f) {
      if (!out[f]) continue;
      flows[kept] = flows[f];
      planned[kept] = planned[f];
      flows[kept].route = impl_->net->prepare_route(*out[f]);
      ++kept;
    }
    PLANSIM_ASSERT(kept > 0 || out.empty(), "collective runner: a rewrite dropped every flow of a phase");
    flows.resize(kept);
    planned.resize(kept);
  }
  const auto index = static_cast<uint32_t>(impl_->prepared.size());
  impl_->prepared.push_back(std::move(p));
  return PreparedCall{index};
}

void CollectiveRunner::for_each_flow_links(PreparedCall a,
                                           const std::function<void(std::span<const LinkId>)>& visit) const {
  PLANSIM_ASSERT(a.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const Prepared& x = *impl_->prepared[a.index];
  for (const auto& phase : x.choice.plan.phases)
    for (const auto& flow : phase.flows) visit(flow.links);
}

void CollectiveRunner::for_each_phase(PreparedCall a,
                                      const std::function<void(std::span<const FlowShape>)>& visit) const {
  PLANSIM_ASSERT(a.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const Prepared& x = *impl_->prepared[a.index];
  std::vector<FlowShape> shapes;
  for (size_t ph = 0; ph < x.flows.size(); ++ph) {
    phase_shapes(x, ph, shapes);
    visit(shapes);
  }
}

// Why a renamed route suffices. Preparing a send/recv {src, dst} (collective_runner.cpp, selection.cpp,
// algorithm.cpp, flow_plan.cpp, nccl_model.cpp, nccl_channels.cpp) reads, besides the call's bytes and
// requests and the runner's NCCL parameters and the GPU spec: the candidates (every registered
// algorithm that supports send_recv; checked below to be send_recv alone, whose shape_ok and expand
// read only the group size), whether the two GPUs share a server (intra_hw_kind, lower_steps' step
// count), and route(src, dst): its links' kinds, bandwidths and latencies (intra_hw_kind,
// route_latency, flow_efficiency, flow_caps, predict_time's per-link load) and which of its positions
// name the same link (the per-link sums). Lowering makes one phase with one flow over that route, in
// order. So two such calls whose routes agree position by position in those attributes and in their
// pattern of repeats, with the same server sharing, go through the same arithmetic and get the same
// choice, latencies, bytes, caps and reductions; their prepared calls differ only by the links, paired
// position by position. tests/coll/test_renamed_calls.cpp checks this against prepare().
std::optional<std::span<const LinkId>> CollectiveRunner::renamed_send_recv_route(PreparedCall a, GpuId src,
                                                                                 GpuId dst) const {
  PLANSIM_ASSERT(a.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const Prepared& x = *impl_->prepared[a.index];
  const Topology& topo = impl_->net->topology();
  if (x.op != CollOp::send_recv || x.root != 0 || x.ranks.size() != 2 || x.ranks[0] == x.ranks[1] || src == dst ||
      src.index() >= topo.num_gpus() || dst.index() >= topo.num_gpus())
    return std::nullopt;
  if (x.algorithm_request != "auto" && x.algorithm_request != "send_recv") return std::nullopt;
  for (const auto& alg : impl_->registry.all())
    if (alg->supports(CollOp::send_recv) && alg->name() != "send_recv") return std::nullopt;
  if (x.flows.size() != 1 || x.flows[0].size() != 1) return std::nullopt;
  const std::span<const LinkId> mine = topo.route(x.ranks[0], x.ranks[1]);
  const std::vector<LinkId>& stored = x.choice.plan.phases[0].flows[0].links;
  if (!std::equal(mine.begin(), mine.end(), stored.begin(), stored.end())) return std::nullopt;
  if ((topo.host_of(x.ranks[0]) == topo.host_of(x.ranks[1])) != (topo.host_of(src) == topo.host_of(dst)))
    return std::nullopt;
  const std::span<const LinkId> theirs = topo.route(src, dst);
  if (theirs.size() != mine.size()) return std::nullopt;
  for (size_t i = 0; i < mine.size(); ++i) {
    const Link& p = topo.link(mine[i]);
    const Link& q = topo.link(theirs[i]);
    if (p.kind != q.kind || p.bandwidth != q.bandwidth || p.latency != q.latency ||
        p.store_and_forward != q.store_and_forward)
      return std::nullopt;
    for (size_t k = 0; k < i; ++k)
      if ((mine[k] == mine[i]) != (theirs[k] == theirs[i])) return std::nullopt;
  }
  return theirs;
}

// Why φ suffices (the same reasoning as renamed_send_recv_route's, for any group). Preparing a call
// reads the topology (grep topo in sim/coll) through: the GPU count; the ranks' servers, only ever
// compared for equality (GroupShape::uniform_hosts, distinct_hosts, intra_hw_kind, lower_steps); the
// routes between two ranks (append_route, route_latency: RouteReads lists them) and their links' kinds,
// bandwidths, latencies and identities, where only equality of identities matters (per-link sums are in
// flow order, predict_time, or in byte order within a link, flow_caps; maxima do not depend on order);
// the GPU spec; and, for NVLS / NVLS-Tree only, the switches next to the ranks and their NVLink domains.
// (direct, the all-to-all's pairwise sends, is lowered like ring and tree: its expand reads the group
// size and root only, the rest is lower_steps.)
// (pat reads the same: the group size, server equality, routes between ranks; direct also the ranks' NIC
// indices, for its PXN relays, so its calls are renamed only onto ranks with the same NIC index position by position.)
// So if (1) the candidates are among send_recv, ring, tree, direct, pat, nvls, nvls_tree, collnet_direct and
// nvls_collnet, with none of the in-switch algorithms applicable to either group, (2) ranks i and k are equal, and
// share a server, in `ranks` exactly when they do in a's, and (3) every route a's preparation read,
// between its ranks i and k, has the route between `ranks`' i and k as its image under one one-to-one
// φ that keeps kind, bandwidth, latency and store-and-forward, position by position, then preparing the
// new call runs the same steps with every read renamed by φ (by induction: it reads the same index pairs
// as long as all earlier reads agreed), and it ends as `a` with φ applied to its links.
// tests/coll/test_renamed_calls.cpp checks this against prepare().
bool CollectiveRunner::renamed_links(PreparedCall a, std::span<const GpuId> ranks, std::vector<LinkId>& links) {
  PLANSIM_ASSERT(a.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const Prepared& x = *impl_->prepared[a.index];
  const Topology& topo = impl_->net->topology();
  const size_t n = x.ranks.size();
  if (n == 0 || ranks.size() != n || x.algorithm_request != "auto") return false;  // n == 0: remapped
  for (GpuId g : ranks)
    if (g.index() >= topo.num_gpus()) return false;
  // direct's PXN relays (pxn.hpp) follow the ranks' NIC indices, which the route reads do not pin: equal ones only.
  if (const CollectiveAlgorithm* direct = impl_->registry.find("direct"); direct && direct->supports(x.op))
    for (size_t i = 0; i < n; ++i)
      if (nic_index(topo, x.ranks[i]) != nic_index(topo, ranks[i])) return false;
  for (const auto& alg : impl_->registry.all()) {
    if (!alg->in_auto(x.op) || !alg->supports(x.op)) continue;
    const std::string_view name = alg->name();
    const bool in_switch =
        name == "nvls" || name == "nvls_tree" || name == "collnet_direct" || name == "nvls_collnet";
    if (name != "send_recv" && name != "ring" && name != "tree" && name != "direct" && name != "pat" && !in_switch)
      return false;
    if (in_switch &&
        (alg->applicable(x.op, topo, x.ranks) || alg->applicable(x.op, topo, ranks)))
      return false;
  }
  if (!x.reads_known) {  // prepare `a` again, listing the routes it reads
    RouteReads reads;
    const CollectiveCall call{x.op, x.ranks, Bytes(x.bytes), x.root, x.algorithm_request, x.protocol_request};
    (void)choose_collective(impl_->registry, impl_->params, topo, call);
    std::sort(reads.pairs.begin(), reads.pairs.end());
    reads.pairs.erase(std::unique(reads.pairs.begin(), reads.pairs.end()), reads.pairs.end());
    x.route_reads = std::move(reads.pairs);
    x.reads_known = true;
    // Each read's first rank positions (a read not between two ranks: never a renaming) and route.
    impl_->first_positions(topo, x.ranks, false, x.first_rank);
    impl_->first_positions(topo, x.ranks, true, x.first_host);
    std::unordered_map<uint32_t, uint32_t> first_a;
    for (uint32_t i = 0; i < n; ++i) first_a.emplace(x.ranks[i].value, i);
    x.reads_between_ranks = true;
    for (const auto& [from, to] : x.route_reads) {
      const auto i = first_a.find(from.value), k = first_a.find(to.value);
      if (i == first_a.end() || k == first_a.end()) {
        x.reads_between_ranks = false;
        break;
      }
      x.read_at.emplace_back(i->second, k->second);
      x.read_route.push_back(topo.route(from, to));
    }
  }
  if (!x.reads_between_ranks) return false;
  // (2): the first index of each rank, and of each rank's server, agree.
  impl_->first_positions(topo, ranks, false, impl_->first_scratch);
  if (impl_->first_scratch != x.first_rank) return false;
  impl_->first_positions(topo, ranks, true, impl_->first_scratch);
  if (impl_->first_scratch != x.first_host) return false;
  // (3): φ from the routes read, position by position, in per-link arrays (reset before returning).
  auto& phi = impl_->phi;
  auto& inverse = impl_->phi_inverse;
  if (phi.size() != topo.links().size()) {
    phi.assign(topo.links().size(), kNoLink);
    inverse.assign(topo.links().size(), kNoLink);
  }
  struct Reset {
    Impl& impl;
    ~Reset() {
      for (const uint32_t l : impl.phi_touched) impl.phi[l] = kNoLink;
      for (const uint32_t l : impl.phi_inverse_touched) impl.phi_inverse[l] = kNoLink;
      impl.phi_touched.clear();
      impl.phi_inverse_touched.clear();
    }
  } reset{*impl_};
  auto map = [&](LinkId from_link, LinkId to_link) {
    if (phi[from_link.index()] == kNoLink) {
      phi[from_link.index()] = to_link.value;
      impl_->phi_touched.push_back(from_link.value);
    }
    if (inverse[to_link.index()] == kNoLink) {
      inverse[to_link.index()] = from_link.value;
      impl_->phi_inverse_touched.push_back(to_link.value);
    }
    return phi[from_link.index()] == to_link.value && inverse[to_link.index()] == from_link.value;
  };
  for (size_t r = 0; r < x.read_at.size(); ++r) {
    const std::span<const LinkId> mine = x.read_route[r];
    const std::span<const LinkId> theirs = topo.route(ranks[x.read_at[r].first], ranks[x.read_at[r].second]);
    if (mine.size() != theirs.size()) return false;
    for (size_t p = 0; p < mine.size(); ++p) {
      const Link& u = topo.link(mine[p]);
      const Link& v = topo.link(theirs[p]);
      if (u.kind != v.kind || u.bandwidth != v.bandwidth || u.latency != v.latency ||
          u.store_and_forward != v.store_and_forward)
        return false;
      if (!map(mine[p], theirs[p])) return false;
    }
  }
  links.clear();
  for (const auto& phase : x.choice.plan.phases)
    for (const auto& flow : phase.flows)
      for (LinkId l : flow.links) {
        if (phi[l.index()] == kNoLink) return false;
        links.push_back(LinkId(phi[l.index()]));
      }
  return true;
}

}  // namespace plansim
