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
#include <utility>

#include "sim/coll/nccl_channels.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/selection.hpp"
#include "sim/core/assert.hpp"
#include "sim/core/free_slots.hpp"

#include "sim/coll/collective_runner_impl.hpp"

namespace plansim {
namespace {

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
}  // namespace

uint32_t CollectiveRunner::Impl::prepare(const CollectiveCall& call) {
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

uint32_t CollectiveRunner::Impl::new_run(uint32_t prep) {
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

void CollectiveRunner::Impl::launch(uint32_t r) {
  net->sim().after(prepared[runs[r].prep]->software_latency, [this, r] { start_phase(r); });
}

void CollectiveRunner::Impl::finish_one(uint32_t r) {
  if (--runs[r].pending > 0) return;
  ++runs[r].phase;
  start_phase(r);
}

void CollectiveRunner::Impl::start_phase(uint32_t r) {
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

const std::string& CollectiveRunner::algorithm(PreparedCall call) const {
  PLANSIM_ASSERT(call.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  return impl_->prepared[call.index]->algorithm;
}

const std::string& CollectiveRunner::protocol(PreparedCall call) const {
  PLANSIM_ASSERT(call.index < impl_->prepared.size(), "collective runner: unknown prepared call");
  return impl_->prepared[call.index]->protocol;
}

}  // namespace plansim
