// Runs a chosen collective on the FlowNetwork: the NCCL software latency first, then the FlowPlan's
// phases one after another; a phase's flows start together (bytes inflated by 1/efficiency) and the
// phase ends when its last flow lands and its HBM reduction time has passed.
//
// Choosing and lowering a collective is a pure function of the call (op, ranks, bytes, root,
// algorithm, protocol) for a given topology and NCCL model, so the runner keeps what it prepared
// per distinct call (a plan executor issues the same send/recv pair or DP bucket many times) and
// hands out its index (PreparedCall), so that a caller that knows its call can start it again
// without hashing and comparing the call. A collective in flight is a Run in a pool, named by its
// index: the callbacks it gives the flow network and the event queue capture (runner, index), which
// std::function keeps inline, so starting one allocates nothing once the pool has grown.
// A new call of the same op, size, bytes and requests as one prepared before is given as that one
// renamed where renamed_links() proves it is (the DP collectives of a plan's pipeline stages and TP
// ranks): its routes are looked up, its choice and lowering are not redone.
#include "sim/coll/collective_runner.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <utility>

#include "sim/coll/nccl_channels.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/selection.hpp"
#include "sim/core/assert.hpp"
#include "sim/core/free_slots.hpp"

namespace plansim {
namespace {

// One flow of a phase as a run starts it (one FlowNetwork batch per phase): its route prepared on
// the network, bytes on the wire (1/efficiency included), latency, and the NCCL channel cap on the
// wire rate (nccl_channels.hpp; FlowNetwork::kNoCap if none).
using PreparedFlow = FlowNetwork::BatchFlow;
constexpr uint32_t kNoLink = ~0U;

// Everything a run of one distinct call needs, computed once.
struct Prepared {
  CollOp op;
  int root;
  double bytes;
  std::string algorithm_request, protocol_request;
  std::vector<GpuId> ranks;
  CollectiveChoice choice;
  Time software_latency;
  std::string algorithm, protocol;          // what ran, for CollectiveResult
  std::vector<std::vector<PreparedFlow>> flows;  // [phase][flow]
  std::vector<Time> reduce;                 // [phase]: local reduction time
  // renamed_links(): the routes between ranks choosing and lowering the call read, distinct, once asked.
  mutable std::vector<std::pair<GpuId, GpuId>> route_reads;
  mutable bool reads_known = false;
  // renamed_links(), once the reads are known: per rank position the first position holding the same
  // GPU and the first holding a GPU of the same server; per read, its first positions (i, k) and the
  // route itself (spans stay valid for the topology's lifetime); false when a read is not between ranks.
  mutable std::vector<uint32_t> first_rank, first_host;
  mutable std::vector<std::pair<uint32_t, uint32_t>> read_at;
  mutable std::vector<std::span<const LinkId>> read_route;
  mutable bool reads_between_ranks = false;

  [[nodiscard]] bool matches(const CollectiveCall& c) const {
    return op == c.op && root == c.root && bytes == c.bytes.value() && ranks == c.ranks &&
           algorithm_request == c.algorithm && protocol_request == c.protocol;
  }
};

uint64_t call_hash(const CollectiveCall& c) {
  uint64_t h = 0xcbf29ce484222325ULL;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  };
  mix(static_cast<uint64_t>(c.op));
  mix(static_cast<uint64_t>(c.root));
  mix(std::hash<double>{}(c.bytes.value()));
  for (GpuId g : c.ranks) mix(g.value);
  mix(std::hash<std::string>{}(c.algorithm));
  mix(std::hash<std::string>{}(c.protocol));
  return h;
}

uint64_t shape_hash(const CollectiveCall& c) {
  CollectiveCall shape = c;
  shape.ranks.assign(c.ranks.size(), GpuId(0));
  return call_hash(shape);
}

// A collective in flight. Exactly one of the two callbacks is set.
struct Run {
  uint32_t prep = 0;
  uint32_t phase = 0;
  size_t pending = 0;
  Time start;
  std::function<void()> on_done;
  std::function<void(const CollectiveResult&)> on_result;
};

}  // namespace

struct CollectiveRunner::Impl {
  FlowNetwork* net;
  NcclModelParams params;
  AlgorithmRegistry registry = make_default_registry();
  std::vector<std::unique_ptr<const Prepared>> prepared;  // by PreparedCall::index
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash;
  std::vector<Run> runs;  // by run index; reused through free_runs
  std::vector<uint32_t> free_runs;
  // lower_bound's per-link scratch (indexed by LinkId; reset after each phase).
  std::vector<double> bound_bytes;
  std::vector<Time> bound_first;
  std::vector<uint32_t> bound_touched;
  // renamed_links()' link map φ and its inverse (kNoLink: unset), reset after each call.
  std::vector<uint32_t> phi, phi_inverse, phi_touched, phi_inverse_touched;
  // renamed_links()' first position of each GPU and server in the new ranks, valid where the stamp is
  // the call's.
  std::vector<uint32_t> gpu_first, gpu_stamp, host_first, host_stamp;
  uint32_t stamp = 0;
  // The first position of each rank's GPU (by_host: its server) in `ranks`, into `out`.
  void first_positions(const Topology& topo, std::span<const GpuId> ranks, bool by_host, std::vector<uint32_t>& out) {
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
  std::vector<uint32_t> first_scratch;
  CollectiveRunner* self = nullptr;
  bool reuse_renamings = true;
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_shape;  // prepare(): up to 2 per (op, root, bytes, size, requests)
  std::vector<LinkId> renamed;                                    // prepare(): a renamed call's links

  uint32_t prepare(const CollectiveCall& call) {
    auto& bucket = by_hash[call_hash(call)];
    for (uint32_t i : bucket)
      if (prepared[i]->matches(call)) return i;
    // A call that is an earlier one of the same op, size and bytes on renamed links (renamed_links())
    // is that one renamed: its routes are still looked up, its choice and lowering are not redone.
    std::vector<uint32_t>* reps = nullptr;
    if (reuse_renamings) {
      reps = &by_shape[shape_hash(call)];
      for (const uint32_t rep : *reps) {
        const Prepared& r = *prepared[rep];
        if (r.op != call.op || r.root != call.root || r.bytes != call.bytes.value() || r.ranks.size() != call.ranks.size() ||
            r.algorithm_request != call.algorithm || r.protocol_request != call.protocol ||
            !self->renamed_links(PreparedCall{rep}, call.ranks, renamed))
          continue;
        auto p = std::make_unique<Prepared>(r);
        p->ranks = call.ranks;
        p->route_reads.clear();
        p->reads_known = false;
        p->first_rank.clear();
        p->first_host.clear();
        p->read_at.clear();
        p->read_route.clear();
        size_t at = 0;
        for (size_t ph = 0; ph < p->flows.size(); ++ph)
          for (size_t f = 0; f < p->flows[ph].size(); ++f) {
            auto& links = p->choice.plan.phases[ph].flows[f].links;
            std::copy(renamed.begin() + static_cast<std::ptrdiff_t>(at),
                      renamed.begin() + static_cast<std::ptrdiff_t>(at + links.size()), links.begin());
            at += links.size();
            p->flows[ph][f].route = net->prepare_route(links);
          }
        const auto index = static_cast<uint32_t>(prepared.size());
        prepared.push_back(std::move(p));
        bucket.push_back(index);
        return index;
      }
    }
    const Topology& topo = net->topology();
    auto p = std::make_unique<Prepared>();
    p->choice = choose_collective(registry, params, topo, call);  // throws on a bad call: nothing cached
    p->op = call.op;
    p->root = call.root;
    p->bytes = call.bytes.value();
    p->algorithm_request = call.algorithm;
    p->protocol_request = call.protocol;
    p->ranks = call.ranks;
    const CollectiveChoice& c = p->choice;
    p->software_latency = software_latency(params, c.algorithm->latency_class(), c.protocol, c.plan, c.intra);
    p->algorithm = std::string(c.algorithm->name());
    p->protocol = to_string(c.protocol);
    for (const PlannedPhase& ph : c.plan.phases) {
      auto& w = p->flows.emplace_back();
      std::vector<double> wire;
      for (const PlannedFlow& f : ph.flows) wire.push_back(wire_bytes(params, c.protocol, topo, f).value());
      const std::vector<double> caps = flow_caps(params, c.protocol, c.plan, ph, wire, topo, c.intra);
      for (size_t i = 0; i < ph.flows.size(); ++i)
        w.push_back(PreparedFlow{net->prepare_route(ph.flows[i].links), Bytes(wire[i]), ph.flows[i].latency, Rate(caps[i])});
      p->reduce.push_back(reduction_time(topo, ph.reduce_bytes_per_gpu));
    }
    const auto index = static_cast<uint32_t>(prepared.size());
    prepared.push_back(std::move(p));
    bucket.push_back(index);
    if (reps != nullptr && reps->size() < 2) reps->push_back(index);
    return index;
  }

  uint32_t new_run(uint32_t prep) {
    const uint32_t r = take_free_slot(free_runs, [this] {
      runs.emplace_back();
      return static_cast<uint32_t>(runs.size() - 1);
    });
    runs[r].prep = prep;
    runs[r].phase = 0;
    runs[r].pending = 0;
    runs[r].start = net->sim().now();
    return r;
  }

  void launch(uint32_t r) {
    net->sim().after(prepared[runs[r].prep]->software_latency, [this, r] { start_phase(r); });
  }

  void finish_one(uint32_t r) {
    if (--runs[r].pending > 0) return;
    ++runs[r].phase;
    start_phase(r);
  }

  void start_phase(uint32_t r) {
    Simulation& sim = net->sim();
    Run& run = runs[r];
    const Prepared& prep = *prepared[run.prep];
    while (run.phase < prep.flows.size()) {
      const auto& flows = prep.flows[run.phase];
      const Time reduce = prep.reduce[run.phase];
      run.pending = (flows.empty() ? 0u : 1u) + (reduce > Time::zero() ? 1u : 0u);
      if (run.pending == 0) {
        ++run.phase;
        continue;
      }
      // `run` stays valid: starting flows runs no callback (completions are events). The batch's
      // callback is where its last flow's own would have run (net/flow_batch.cpp).
      if (!flows.empty()) net->start_batch(flows, [this, r] { finish_one(r); });
      if (reduce > Time::zero()) sim.after(reduce, [this, r] { finish_one(r); });
      return;
    }
    // Release the run before the callback, which may start another on this runner.
    std::function<void()> done = std::move(run.on_done);
    std::function<void(const CollectiveResult&)> result = std::move(run.on_result);
    run.on_done = nullptr;
    run.on_result = nullptr;
    const Time start = run.start;
    free_runs.push_back(r);
    if (result) result(CollectiveResult{prep.algorithm, prep.protocol, start, sim.now()});
    else done();
  }
};

CollectiveRunner::CollectiveRunner(FlowNetwork& net) : CollectiveRunner(net, NcclModelParams{}) {}
CollectiveRunner::CollectiveRunner(FlowNetwork& net, const NcclModelParams& params)
    : impl_(std::make_unique<Impl>(Impl{&net, params, make_default_registry(), {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                                        {}, {}, {}, {}, 0, {}, this, true, {}, {}})) {}

void CollectiveRunner::reuse_renamings(bool on) { impl_->reuse_renamings = on; }
CollectiveRunner::~CollectiveRunner() = default;

PreparedCall CollectiveRunner::prepare(const CollectiveCall& call) { return PreparedCall{impl_->prepare(call)}; }

void CollectiveRunner::start(const CollectiveCall& call, std::function<void(const CollectiveResult&)> on_done) {
  const uint32_t r = impl_->new_run(impl_->prepare(call));
  impl_->runs[r].on_result = std::move(on_done);
  impl_->launch(r);
}

void CollectiveRunner::start(PreparedCall call, std::function<void()> on_done) {
  PLANSIM_ASSERT(call.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const uint32_t r = impl_->new_run(call.index);
  impl_->runs[r].on_done = std::move(on_done);
  impl_->launch(r);
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

Time CollectiveRunner::lower_bound(PreparedCall call) const {
  PLANSIM_ASSERT(call.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const Prepared& p = *impl_->prepared[call.index];
  const auto& links = impl_->net->topology().links();
  auto down_ps = [](double seconds) { return Time::ps(static_cast<int64_t>(std::floor(seconds * 1e12))); };
  Time total = p.software_latency;
  // Per link of the phase: wire bytes and the smallest latency of the flows crossing it.
  auto& bytes = impl_->bound_bytes;
  auto& first = impl_->bound_first;
  auto& touched = impl_->bound_touched;
  if (bytes.size() != links.size()) {
    bytes.assign(links.size(), 0.0);
    first.assign(links.size(), Time::infinite());
  }
  std::vector<LinkId> sorted;
  for (size_t ph = 0; ph < p.flows.size(); ++ph) {
    Time phase = p.reduce[ph];
    touched.clear();
    for (size_t f = 0; f < p.flows[ph].size(); ++f) {
      const PreparedFlow& pf = p.flows[ph][f];
      const auto& route = p.choice.plan.phases[ph].flows[f].links;
      if (pf.bytes.value() <= 0 || route.empty()) {  // moves nothing over a link: its latency only
        phase = std::max(phase, pf.latency);
        continue;
      }
      // Alone, the flow runs at min over its links of capacity / multiplicity.
      sorted.assign(route.begin(), route.end());
      std::sort(sorted.begin(), sorted.end());
      double seconds_per_byte = 0;
      for (size_t i = 0; i < sorted.size();) {
        size_t e = i;
        while (e < sorted.size() && sorted[e] == sorted[i]) ++e;
        seconds_per_byte =
            std::max(seconds_per_byte, static_cast<double>(e - i) / links[sorted[i].index()].bandwidth.value());
        i = e;
      }
      phase = std::max(phase, pf.latency + down_ps(pf.bytes.value() * seconds_per_byte));
      for (LinkId l : route) {
        if (first[l.index()] == Time::infinite()) touched.push_back(l.value);
        bytes[l.index()] += pf.bytes.value();
        first[l.index()] = std::min(first[l.index()], pf.latency);
      }
    }
    for (uint32_t l : touched) {
      phase = std::max(phase, first[l] + down_ps(bytes[l] / links[l].bandwidth.value()));
      bytes[l] = 0;
      first[l] = Time::infinite();
    }
    total += phase;
  }
  return total;
}

PreparedCall CollectiveRunner::remap(PreparedCall a,
                                     const std::function<bool(std::span<const LinkId>, std::vector<LinkId>&)>& remap) {
  PLANSIM_ASSERT(a.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  const Prepared& x = *impl_->prepared[a.index];
  auto p = std::make_unique<Prepared>(x);
  // Not findable by prepare(): it answers for no call of its own.
  p->ranks.clear();
  p->algorithm_request = "\x01remapped";
  std::vector<LinkId> links;
  const auto& phases = x.choice.plan.phases;
  for (size_t ph = 0; ph < x.flows.size(); ++ph)
    for (size_t f = 0; f < x.flows[ph].size(); ++f) {
      if (!remap(phases[ph].flows[f].links, links)) return PreparedCall{};
      p->flows[ph][f].route = impl_->net->prepare_route(links);
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
// So if (1) the candidates are among send_recv, ring, tree, nvls and nvls_tree, with neither NVLS algorithm
// applicable to either group, (2) ranks i and k are equal, and
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
  for (const auto& alg : impl_->registry.all()) {
    if (!alg->in_auto() || !alg->supports(x.op)) continue;
    const std::string_view name = alg->name();
    if (name != "send_recv" && name != "ring" && name != "tree" && name != "nvls" && name != "nvls_tree") return false;
    if ((name == "nvls" || name == "nvls_tree") &&
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

const std::string& CollectiveRunner::algorithm(PreparedCall call) const {
  PLANSIM_ASSERT(call.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  return impl_->prepared[call.index]->algorithm;
}

const std::string& CollectiveRunner::protocol(PreparedCall call) const {
  PLANSIM_ASSERT(call.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  return impl_->prepared[call.index]->protocol;
}

}  // namespace plansim
