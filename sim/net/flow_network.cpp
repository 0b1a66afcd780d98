// FlowNetwork: flows over links with max-min fair rates, advanced lazily.
//
// Life of a flow: start() -> (latency) -> activate: joins its links' flow lists and marks them dirty
// -> a "resolve" event at the same time re-solves the connected components of flows reachable from
// dirty links (flows sharing a link, transitively) -> its predicted finish time sits in an indexed
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
#include "sim/net/completion_heap.hpp"
#include "sim/net/max_min.hpp"

namespace plansim {

struct FlowNetwork::Impl {
  struct Entry {  // one distinct link of a flow
    uint32_t link;
    uint32_t mult;
    uint32_t pos;  // index of this flow's reference in link_flows[link]
  };
  struct LinkRef {
    uint32_t slot;
    uint32_t entry;  // index into the flow's entries
  };
  enum class State : uint8_t { free, waiting, active };
  struct Flow {
    FlowId id;
    State state = State::free;
    std::vector<Entry> entries;
    double bytes = 0;
    double remaining = 0;
    double rate = 0;
    double cap = kNoCap;
    Time last;
    std::function<void()> on_done;
    EventId activation;
    uint32_t stamp = 0;
    uint32_t local = 0;  // index in the component being solved
    bool joined = false; // in its links' flow lists (moving bytes at a solved rate)
  };

  Impl(Simulation& s, const Topology& t);
  FlowId start(std::span<const LinkId> links, double bytes, Time latency, std::function<void()> on_done, double cap);
  void activate(uint32_t slot);
  void mark_dirty(const Flow& f);
  void ensure_resolve();
  void resolve();
  void solve_component(uint32_t seed_link);
  void set_finish(uint32_t slot);
  void on_completion();
  void finish(uint32_t slot);  // completes now: bytes delivered, leaves its links, on_done queued
  void release(uint32_t slot);
  void reschedule_completion();
  void check_links(std::span<const uint32_t> links) const;

  Simulation& sim;
  const Topology& topo;
  std::vector<double> capacity;                   // per link, bytes/s
  std::vector<std::vector<LinkRef>> link_flows;   // per link: active flows crossing it
  std::vector<Time> busy_since;
  std::vector<LinkStats> stats;
  std::vector<uint32_t> link_stamp;
  std::vector<uint32_t> link_local;
  std::vector<Flow> flows;                        // slots, reused
  std::vector<uint32_t> free_slots;
  std::vector<uint32_t> id_to_slot;               // FlowId -> slot (kNone once completed)
  CompletionHeap heap;
  std::vector<uint32_t> dirty;
  EventId resolve_event;
  EventId completion_event;
  Time completion_time = Time::infinite();
  uint32_t epoch = 0;
  uint64_t started = 0;
  uint64_t solves = 0;
  size_t live = 0;
  bool check = false;
  // Scratch for component solves (reused).
  std::vector<uint32_t> comp_flows, comp_links, queue, scratch_links;
  std::vector<uint32_t> flow_begin, entry_link;
  std::vector<double> entry_mult, flow_cap, link_cap, rates;
  MaxMinSolver solver;
};

FlowNetwork::Impl::Impl(Simulation& s, const Topology& t) : sim(s), topo(t) {
  const size_t n = t.links().size();
  capacity.resize(n);
  for (size_t i = 0; i < n; ++i) capacity[i] = t.links()[i].bandwidth.value();
  link_flows.resize(n);
  busy_since.resize(n);
  stats.resize(n);
  link_stamp.assign(n, 0);
  link_local.assign(n, 0);
}

FlowId FlowNetwork::Impl::start(std::span<const LinkId> links, double bytes, Time latency,
                                std::function<void()> on_done, double cap) {
  PLANSIM_ASSERT(bytes >= 0.0 && std::isfinite(bytes), fmt::format("flow of {} bytes", bytes));
  PLANSIM_ASSERT(latency >= Time::zero(), "flow with negative latency");
  PLANSIM_ASSERT(cap > 0.0, "flow rate cap must be positive");
  for (LinkId l : links) {
    PLANSIM_ASSERT(l.index() < capacity.size(), "flow over an unknown link");
    PLANSIM_ASSERT(capacity[l.index()] > 0.0, fmt::format("flow over link {} with no bandwidth", l.value));
  }
  uint32_t slot;
  if (!free_slots.empty()) {
    slot = free_slots.back();
    free_slots.pop_back();
  } else {
    slot = static_cast<uint32_t>(flows.size());
    flows.emplace_back();
  }
  Flow& f = flows[slot];
  f.id = FlowId::from(id_to_slot.size());
  id_to_slot.push_back(slot);
  f.state = State::waiting;
  f.bytes = f.remaining = bytes;
  f.rate = 0;
  f.cap = cap;
  f.on_done = std::move(on_done);
  // Collapse the multiset into (link, multiplicity), in link id order.
  scratch_links.clear();
  for (LinkId l : links) scratch_links.push_back(l.value);
  std::sort(scratch_links.begin(), scratch_links.end());
  f.entries.clear();
  for (uint32_t l : scratch_links) {
    if (!f.entries.empty() && f.entries.back().link == l) {
      ++f.entries.back().mult;
    } else {
      f.entries.push_back(Entry{l, 1, 0});
    }
  }
  ++started;
  ++live;
  if (latency == Time::zero()) {
    f.activation = {};
    activate(slot);
  } else {
    f.activation = sim.after(latency, [this, slot] { activate(slot); });
  }
  return flows[slot].id;
}

void FlowNetwork::Impl::activate(uint32_t slot) {
  Flow& f = flows[slot];
  f.activation = {};
  f.state = State::active;
  f.last = sim.now();
  f.joined = false;
  if (f.bytes == 0.0 || (f.entries.empty() && f.cap == kNoCap)) {
    f.remaining = 0;  // nothing to move, or nothing to move it over
    finish(slot);
    return;
  }
  if (f.entries.empty()) {  // no shared resource: runs at its cap
    f.rate = f.cap;
    set_finish(slot);
    reschedule_completion();
    return;
  }
  for (uint32_t e = 0; e < f.entries.size(); ++e) {
    Entry& en = f.entries[e];
    auto& lf = link_flows[en.link];
    if (lf.empty()) busy_since[en.link] = sim.now();
    en.pos = static_cast<uint32_t>(lf.size());
    lf.push_back(LinkRef{slot, e});
  }
  f.joined = true;
  mark_dirty(f);
  ensure_resolve();
}

void FlowNetwork::Impl::mark_dirty(const Flow& f) {
  for (const Entry& en : f.entries) dirty.push_back(en.link);
}

// One resolve event per simulated instant: it runs after the events already queued for now.
void FlowNetwork::Impl::ensure_resolve() {
  if (!resolve_event.valid() && !dirty.empty()) resolve_event = sim.at(sim.now(), [this] { resolve(); });
}

void FlowNetwork::Impl::resolve() {
  resolve_event = {};
  ++epoch;
  for (size_t i = 0; i < dirty.size(); ++i) {
    const uint32_t l = dirty[i];
    if (link_stamp[l] != epoch && !link_flows[l].empty()) solve_component(l);
  }
  dirty.clear();
  reschedule_completion();
}

// Breadth-first search from `seed_link` over links and the flows crossing them, then one max-min
// solve of that component. Flows outside it keep their rates.
void FlowNetwork::Impl::solve_component(uint32_t seed_link) {
  comp_flows.clear();
  comp_links.clear();
  link_stamp[seed_link] = epoch;
  link_local[seed_link] = 0;
  comp_links.push_back(seed_link);
  for (size_t q = 0; q < comp_links.size(); ++q) {
    for (const LinkRef& r : link_flows[comp_links[q]]) {
      Flow& f = flows[r.slot];
      if (f.stamp == epoch) continue;
      f.stamp = epoch;
      f.local = static_cast<uint32_t>(comp_flows.size());
      comp_flows.push_back(r.slot);
      for (const Entry& en : f.entries) {
        if (link_stamp[en.link] == epoch) continue;
        link_stamp[en.link] = epoch;
        link_local[en.link] = static_cast<uint32_t>(comp_links.size());
        comp_links.push_back(en.link);
      }
    }
  }
  ++solves;
  const Time now = sim.now();
  for (uint32_t s : comp_flows) {  // advance to now at the old rates
    Flow& f = flows[s];
    f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.last).seconds());
    f.last = now;
  }
  if (comp_flows.size() == 1) {  // closed form: the tightest of its links and its cap
    Flow& f = flows[comp_flows[0]];
    double r = f.cap;
    for (const Entry& en : f.entries) r = std::min(r, capacity[en.link] / en.mult);
    f.rate = r;
    set_finish(comp_flows[0]);
  } else {
    flow_begin.assign(1, 0);
    entry_link.clear();
    entry_mult.clear();
    flow_cap.clear();
    for (uint32_t s : comp_flows) {
      const Flow& f = flows[s];
      for (const Entry& en : f.entries) {
        entry_link.push_back(link_local[en.link]);
        entry_mult.push_back(en.mult);
      }
      flow_begin.push_back(static_cast<uint32_t>(entry_link.size()));
      flow_cap.push_back(f.cap);
    }
    link_cap.clear();
    for (uint32_t l : comp_links) link_cap.push_back(capacity[l]);
    rates.resize(comp_flows.size());
    solver.solve(MaxMinInstance{link_cap, flow_begin, entry_link, entry_mult, flow_cap, {}}, rates);
    for (size_t i = 0; i < comp_flows.size(); ++i) {
      flows[comp_flows[i]].rate = rates[i];
      set_finish(comp_flows[i]);
    }
  }
  if (check) check_links(comp_links);
}

void FlowNetwork::Impl::set_finish(uint32_t slot) {
  const Flow& f = flows[slot];
  PLANSIM_ASSERT(f.rate > 0.0, "flow without bandwidth would never finish");
  const double dt = f.remaining / f.rate;
  PLANSIM_ASSERT(dt < 1e7, fmt::format("flow would take {} s", dt));
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
  const double left = f.remaining - f.rate * (now - f.last).seconds();
  // Finish times are rounded to the picosecond: what is left must be at most ~1 ps of transfer.
  const double tol = f.rate * 1e-12 + 1e-9 * f.bytes + 1e-9;
  PLANSIM_ASSERT(std::fabs(left) <= tol,
                 fmt::format("flow {} completes with {} of {} bytes left", f.id.value, left, f.bytes));
  for (const Entry& en : f.entries) {
    stats[en.link].bytes += Bytes(f.bytes * en.mult);
    if (!f.joined) continue;
    auto& lf = link_flows[en.link];
    const LinkRef moved = lf.back();
    lf[en.pos] = moved;
    flows[moved.slot].entries[moved.entry].pos = en.pos;
    lf.pop_back();
    if (lf.empty()) stats[en.link].busy += now - busy_since[en.link];
  }
  if (f.on_done) sim.at(now, std::move(f.on_done));
  if (f.joined) mark_dirty(f);
  release(slot);
}

void FlowNetwork::Impl::release(uint32_t slot) {
  Flow& f = flows[slot];
  id_to_slot[f.id.index()] = CompletionHeap::kNone;
  f.state = State::free;
  f.joined = false;
  f.on_done = nullptr;
  --live;
  free_slots.push_back(slot);
}

void FlowNetwork::Impl::check_links(std::span<const uint32_t> links) const {
  for (uint32_t l : links) {
    double load = 0;
    for (const LinkRef& r : link_flows[l]) load += flows[r.slot].rate * flows[r.slot].entries[r.entry].mult;
    PLANSIM_ASSERT(load <= capacity[l] * (1 + 1e-9),
                   fmt::format("link {} carries {} B/s over its {} B/s", l, load, capacity[l]));
  }
}

// ---- FlowNetwork ----

FlowNetwork::FlowNetwork(Simulation& sim, const Topology& topo)
    : sim_(&sim), topo_(&topo), impl_(std::make_unique<Impl>(sim, topo)) {}

FlowNetwork::~FlowNetwork() {
  // Pending internal events capture this object: withdraw them (on_done events stay queued).
  if (impl_->resolve_event.valid()) sim_->cancel(impl_->resolve_event);
  if (impl_->completion_event.valid()) sim_->cancel(impl_->completion_event);
  for (const Impl::Flow& f : impl_->flows)
    if (f.state == Impl::State::waiting && f.activation.valid()) sim_->cancel(f.activation);
}

FlowId FlowNetwork::start(std::span<const LinkId> links, Bytes bytes, Time latency, std::function<void()> on_done,
                          Rate cap) {
  return impl_->start(links, bytes.value(), latency, std::move(on_done), cap.value());
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
  LinkStats s = impl_->stats[l.index()];
  if (!impl_->link_flows[l.index()].empty()) s.busy += sim_->now() - impl_->busy_since[l.index()];
  return s;
}

size_t FlowNetwork::active_flows() const { return impl_->live; }
uint64_t FlowNetwork::flows_started() const { return impl_->started; }
uint64_t FlowNetwork::rate_solves() const { return impl_->solves; }
void FlowNetwork::set_check_invariants(bool on) { impl_->check = on; }

Rate FlowNetwork::flow_rate(FlowId f) const {
  PLANSIM_ASSERT(f.index() < impl_->id_to_slot.size(), "unknown flow id");
  const uint32_t slot = impl_->id_to_slot[f.index()];
  if (slot == CompletionHeap::kNone) return Rate(0);
  return Rate(impl_->flows[slot].state == Impl::State::active ? impl_->flows[slot].rate : 0.0);
}

Rate FlowNetwork::link_load(LinkId l) const {
  double load = 0;
  for (const Impl::LinkRef& r : impl_->link_flows[l.index()])
    load += impl_->flows[r.slot].rate * impl_->flows[r.slot].entries[r.entry].mult;
  return Rate(load);
}

}  // namespace plansim
