// FlowNetwork: flows over links with max-min fair rates, advanced lazily.
//
// Life of a flow: start() -> (latency) -> activate: joins its links' flow lists and marks them dirty
// -> a "resolve" event at the same time re-solves the flows whose max-min bottleneck the change can
// break (flow_resolve.cpp) -> its predicted finish time sits in an indexed
// heap -> the single completion event (always at the heap's top time) finishes it, removes it from
// its links (marking them dirty) and schedules on_done at that time.
//
// Batching: activations and completions only mark links dirty; one resolve event, scheduled at the
// current time after the events already queued for it, re-solves everything dirtied at that time at
// once (a collective starting 4,096 flows costs one pass, not 4,096).
//
// Lazy advance: a flow stores (remaining bytes, rate, time of last update); only re-solved flows
// are advanced. Its finish time is last + remaining/rate rounded to the nearest picosecond, so a flow
// finishes within half a picosecond of its exact time; at completion the leftover (at most
// rate × 1 ps, plus rounding) is snapped to zero and asserted small.
#include "sim/net/flow_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/core/assert.hpp"
#include "sim/core/free_slots.hpp"
#include "sim/net/flow_network_impl.hpp"

namespace plansim {
namespace {
uint64_t mix(uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

FlowNetwork::Impl::Impl(Simulation& s, const Topology& t) : sim(s), topo(t) {}

void FlowNetwork::Impl::check_route(std::span<const LinkId> links) {
  uint32_t top = 0;
  for (LinkId l : links) {
    PLANSIM_ASSERT(l.index() < topo.links().size(), "flow over an unknown link");
    top = std::max(top, l.value + 1);
  }
  if (top > link_state.size()) {  // per-link records for links up to the highest a route names
    const size_t from = link_state.size();
    link_state.resize(top);
    link_cold.resize(top);
    for (size_t i = from; i < top; ++i) link_state[i].capacity = topo.links()[i].bandwidth.value();
  }
  for (LinkId l : links)
    PLANSIM_ASSERT(link_state[l.index()].capacity > 0.0, fmt::format("flow over link {} with no bandwidth", l.value));
}

void FlowNetwork::Impl::collapse(std::span<const LinkId> links, EntryList& entries, uint64_t& key) {
  // Collapse the multiset into (link, multiplicity), in order of first appearance (O(n), no sort).
  ++dedupe_epoch;
  entries.clear();
  for (LinkId id : links) {
    const uint32_t l = id.value;
    if (link_cold[l].dedupe_stamp == dedupe_epoch) {
      ++entries[link_cold[l].dedupe_pos].mult;
    } else {
      link_cold[l].dedupe_stamp = dedupe_epoch;
      link_cold[l].dedupe_pos = static_cast<uint32_t>(entries.size());
      entries.push_back(Entry{l, 1});
    }
  }
  key = 0x9e3779b97f4a7c15ULL;
  for (const Entry& en : entries) key = mix(key ^ ((uint64_t{en.link} << 32) | en.mult));
}

uint32_t FlowNetwork::Impl::new_flow(double bytes, Time latency, std::function<void()> on_done, double cap) {
  PLANSIM_ASSERT(bytes >= 0.0 && std::isfinite(bytes), fmt::format("flow of {} bytes", bytes));
  PLANSIM_ASSERT(latency >= Time::zero(), "flow with negative latency");
  PLANSIM_ASSERT(cap > 0.0, "flow rate cap must be positive");
  const uint32_t slot = take_free_slot(free_slots, [this] {
    flows.emplace_back();
    cold.emplace_back();
    hot.emplace_back();
    joined_id.push_back(CompletionHeap::kNone);
    return static_cast<uint32_t>(flows.size() - 1);
  });
  Flow& f = flows[slot];
  f.id = FlowId::from(id_to_slot.size());
  id_to_slot.push_back(slot);
  f.state = State::waiting;
  f.bytes = f.remaining = bytes;
  hot[slot].rate = 0;
  f.cap = cap;
  f.callback = static_cast<bool>(on_done);
  if (f.callback) cold[slot].on_done = std::move(on_done);
  return slot;
}

FlowId FlowNetwork::Impl::launch(uint32_t slot, Time latency) {
  ++started;
  ++live;
  if (latency == Time::zero()) {
    flows[slot].activation = {};
    activate(slot);
  } else {
    flows[slot].activation = sim.after(latency, [this, slot] { activate(slot); });
  }
  return flows[slot].id;
}

void FlowNetwork::Impl::activate(uint32_t slot) {
  Flow& f = flows[slot];
  f.activation = {};
  f.state = State::active;
  f.last = sim.now();
  f.joined = false;
  hot[slot].bottleneck = kUnsolved;
  if (f.bytes == 0.0 || (f.entries.empty() && f.cap == kNoCap)) {
    f.remaining = 0;  // nothing to move, or nothing to move it over
    finish(slot);
    return;
  }
  if (f.entries.empty()) {  // no shared resource: runs at its cap
    hot[slot].rate = f.cap;
    set_finish(slot);
    reschedule_completion();
    return;
  }
  for (const Entry& en : f.entries) prefetch(&link_state[en.link]);  // independent misses, overlapped
  for (uint32_t e = 0; e < f.entries.size(); ++e) {
    const Entry& en = f.entries[e];
    if (link_state[en.link].live++ == 0) link_cold[en.link].busy_since = sim.now();
    link_state[en.link].flows.push_back(LinkRef{slot, en.mult, f.id.value});
  }
  joined_id[slot] = f.id.value;
  f.joined = true;
  mark_dirty(f);
  ensure_resolve();
}

// A link already on `dirty` is not listed again: the re-solve visits each dirty link once, at its
// first listing, so the later ones only cost it a lookup (an all-to-all's flows share their links).
void FlowNetwork::Impl::mark_dirty(const Flow& f) {
  for (const Entry& en : f.entries) {
    LinkState& ls = link_state[en.link];
    if (ls.queued == dirty_round) continue;
    ls.queued = dirty_round;
    dirty.push_back(en.link);
  }
}

// One resolve event per simulated instant: it runs after the events already queued for now.
void FlowNetwork::Impl::ensure_resolve() {
  if (!resolve_event.valid() && !dirty.empty()) resolve_event = sim.at(sim.now(), [this] { resolve(); });
}

void FlowNetwork::Impl::set_finish(uint32_t slot) {
  const Flow& f = flows[slot];
  const double rate = hot[slot].rate;
  PLANSIM_ASSERT(rate > 0.0, "flow without bandwidth would never finish");
  const double dt = f.remaining / rate;
  PLANSIM_ASSERT(dt < 1e6, fmt::format("flow would take {} s (more than 11 simulated days)", dt));
  heap.set(slot, (f.last + Time::from_seconds(dt)).picoseconds(), f.id.value);
}

void FlowNetwork::Impl::reschedule_completion() {
  const Time t = heap.empty() ? Time::infinite() : Time::ps(heap.top_time());
  if (completion_event.valid()) {
    if (completion_time == t) return;
    sim.cancel(completion_event);
    completion_event = {};
  }
  completion_time = t;
  if (!t.is_infinite()) completion_event = sim.at(t, [this] { on_completion(); });
}

void FlowNetwork::Impl::on_completion() {
  completion_event = {};
  const int64_t now = sim.now().picoseconds();
  while (!heap.empty() && heap.top_time() <= now) {
    const uint32_t slot = heap.top_slot();
    heap.erase(slot);
    finish(slot);
  }
  // After the on_done events just queued, so flows they start join this same re-solve.
  ensure_resolve();
  reschedule_completion();
}

void FlowNetwork::Impl::finish(uint32_t slot) {
  Flow& f = flows[slot];
  const Time now = sim.now();
  const double rate = hot[slot].rate;
  const double left = f.remaining - rate * (now - f.last).seconds();
  // Finish times are rounded to the picosecond: what is left must be at most ~1 ps of transfer.
  const double tol = rate * 1e-12 + 1e-9 * f.bytes + 1e-9;
  PLANSIM_ASSERT(std::fabs(left) <= tol,
                 fmt::format("flow {} completes with {} of {} bytes left", f.id.value, left, f.bytes));
  for (const Entry& en : f.entries) prefetch(&link_state[en.link]);
  for (const Entry& en : f.entries) {
    link_state[en.link].bytes += Bytes(f.bytes * en.mult);
    if (!f.joined) continue;
    // Its refs stay on the links' lists until the next re-solve compacts them (see LinkRef).
    if (--link_state[en.link].live == 0) link_cold[en.link].busy += now - link_cold[en.link].busy_since;
  }
  joined_id[slot] = CompletionHeap::kNone;
  if (f.callback) sim.at(now, std::move(cold[slot].on_done));
  else if (f.batch != kNoBatch) member_done(slot);
  if (f.joined) mark_dirty(f);
  release(slot);
}

void FlowNetwork::Impl::release(uint32_t slot) {
  Flow& f = flows[slot];
  id_to_slot[f.id.index()] = CompletionHeap::kNone;
  f.state = State::free;
  f.joined = false;
  if (f.callback) cold[slot].on_done = nullptr;
  f.callback = false;
  f.batch = kNoBatch;
  --live;
  free_slots.push_back(slot);
}

// ---- FlowNetwork ----

FlowNetwork::FlowNetwork(Simulation& sim, const Topology& topo)
    : sim_(&sim), topo_(&topo), impl_(std::make_unique<Impl>(sim, topo)) {}

FlowNetwork::~FlowNetwork() {
  // Pending internal events capture this object: withdraw them (on_done events stay queued).
  if (impl_->resolve_event.valid()) sim_->cancel(impl_->resolve_event);
  if (impl_->completion_event.valid()) sim_->cancel(impl_->completion_event);
  for (size_t i = 0; i < impl_->flows.size(); ++i)
    if (impl_->flows[i].state == Impl::State::waiting && impl_->flows[i].activation.valid())
      sim_->cancel(impl_->flows[i].activation);
}

FlowId FlowNetwork::start(std::span<const LinkId> links, Bytes bytes, Time latency, std::function<void()> on_done,
                          Rate cap) {
  impl_->check_route(links);
  const uint32_t slot = impl_->new_flow(bytes.value(), latency, std::move(on_done), cap.value());
  Impl::Flow& f = impl_->flows[slot];
  impl_->collapse(links, f.entries, f.key);
  return impl_->launch(slot, latency);
}

FlowRouteId FlowNetwork::prepare_route(std::span<const LinkId> links) {
  impl_->check_route(links);
  Impl::Route& r = impl_->routes.emplace_back();
  impl_->collapse(links, impl_->route_scratch, r.key);
  PLANSIM_ASSERT(impl_->route_entries.size() + links.size() < UINT32_MAX, "more prepared route entries than 32 bits count");
  auto& pool = impl_->route_entries;
  pool.resize(pool.size() - std::min<size_t>(pool.size(), Impl::EntryList::kInline));  // drop the padding
  r.first = static_cast<uint32_t>(pool.size());
  r.size = impl_->route_scratch.size();
  pool.insert(pool.end(), impl_->route_scratch.begin(), impl_->route_scratch.end());
  pool.resize(pool.size() + Impl::EntryList::kInline);  // see EntryList::assign
  return FlowRouteId::from(impl_->routes.size() - 1);
}

FlowId FlowNetwork::start_prepared(FlowRouteId route, Bytes bytes, Time latency, std::function<void()> on_done, Rate cap) {
  PLANSIM_ASSERT(route.index() < impl_->routes.size(), "flow over an unknown route");
  const uint32_t slot = impl_->new_flow(bytes.value(), latency, std::move(on_done), cap.value());
  Impl::Flow& f = impl_->flows[slot];
  const Impl::Route& r = impl_->routes[route.index()];
  f.entries.assign(impl_->route_entries.data() + r.first, r.size);
  f.key = r.key;
  return impl_->launch(slot, latency);
}

Time FlowNetwork::route_latency(std::span<const LinkId> links) const {
  Time t = Time::zero();
  for (LinkId l : links) {
    const Link& link = topo_->link(l);
    t += link.latency;
    if (link.store_and_forward) t += link.latency;
  }
  return t;
}

LinkStats FlowNetwork::link_stats(LinkId l) const {
  if (l.index() >= impl_->link_state.size()) return LinkStats{};  // no flow has named it: an untouched record
  const Impl::LinkCold& c = impl_->link_cold[l.index()];
  LinkStats s{impl_->link_state[l.index()].bytes, c.busy};
  if (impl_->link_state[l.index()].live > 0) s.busy += sim_->now() - c.busy_since;
  return s;
}

size_t FlowNetwork::active_flows() const { return impl_->live; }
uint64_t FlowNetwork::flows_started() const { return impl_->started; }
uint64_t FlowNetwork::rate_solves() const { return impl_->solves; }
uint64_t FlowNetwork::rate_solve_fallbacks() const { return impl_->fallbacks; }
void FlowNetwork::set_check_invariants(bool on) { impl_->check = on; }
void FlowNetwork::set_local_resolve_rounds(int rounds) {
  PLANSIM_ASSERT(rounds >= 0, "negative local re-solve rounds");
  impl_->max_rounds = rounds;
}

Rate FlowNetwork::flow_rate(FlowId f) const {
  PLANSIM_ASSERT(f.index() < impl_->id_to_slot.size(), "unknown flow id");
  const uint32_t slot = impl_->id_to_slot[f.index()];
  if (slot == CompletionHeap::kNone) return Rate(0);
  return Rate(impl_->flows[slot].state == Impl::State::active ? impl_->hot[slot].rate : 0.0);
}

Rate FlowNetwork::link_load(LinkId l) const {
  return l.index() < impl_->link_state.size() ? Rate(impl_->load(l.value)) : Rate(0);
}

}  // namespace plansim
