// FlowNetwork::start_batch: a collective phase's flows, started as one.
//
// A batch is exactly its flows started one by one with start_prepared, in order, each with a
// callback that counts down and runs `on_done` at zero; only the bookkeeping differs:
//  - Activation: flow k's own activation event would be scheduled at now + latency_k, at the point
//    where flow k is started. The members with one latency share one event, scheduled where the
//    first of them is started, which activates them in their order. That is the same sequence of
//    actions: nothing else is scheduled between the members' starts (starting a flow schedules only
//    its own activation, and a zero-latency member's re-solve and callback at now, which is an
//    earlier time), so no event at now + latency falls between two members' activations, and events
//    run in (time, scheduling order).
//  - Completion: the members' callbacks only count down, so only the last one does anything; the
//    batch queues `on_done` (one event) where that last callback would have been queued.
// Flow ids and slots are taken in the same order, so ties (finish times, groups) resolve the same
// way and every rate and finish time is bit-identical (tests/net/test_flow_batch.cpp checks this
// against separate flows). What it saves: two simulation events and a std::function per flow (an
// EP16 all-to-all is 240 flows).
#include <utility>

#include "sim/core/assert.hpp"
#include "sim/core/free_slots.hpp"
#include "sim/net/flow_network_impl.hpp"

namespace plansim {

FlowId FlowNetwork::start_batch(std::span<const BatchFlow> flows, std::function<void()> on_done) {
  PLANSIM_ASSERT(!flows.empty(), "flow batch without flows");
  Impl& m = *impl_;
  const uint32_t b = take_free_slot(m.free_batches, [&m] {
    m.batches.emplace_back();
    return static_cast<uint32_t>(m.batches.size() - 1);
  });
  m.batches[b].pending = static_cast<uint32_t>(flows.size());
  m.batches[b].on_done = std::move(on_done);
  m.batches[b].used_groups = 0;
  FlowId first;
  for (size_t k = 0; k < flows.size(); ++k) {
    const BatchFlow& bf = flows[k];
    PLANSIM_ASSERT(bf.route.index() < m.routes.size(), "flow over an unknown route");
    const uint32_t slot = m.new_flow(bf.bytes.value(), bf.latency, nullptr, bf.cap.value());
    Impl::Flow& f = m.flows[slot];
    const Impl::Route& r = m.routes[bf.route.index()];
    f.entries.assign(m.route_entries.data() + r.first, r.size);
    f.key = r.key;
    f.batch = b;
    if (k == 0) first = f.id;
    ++m.started;
    ++m.live;
    if (bf.latency == Time::zero()) {  // what launch() does: activates now, within the start
      f.activation = {};
      m.activate(slot);
      continue;
    }
    // `m.batches` does not move while starting: activate() never starts a batch.
    Impl::Batch& batch = m.batches[b];
    uint32_t g = 0;
    while (g < batch.used_groups && batch.groups[g].latency != bf.latency) ++g;
    if (g == batch.used_groups) {
      if (g == batch.groups.size()) batch.groups.emplace_back();
      ++batch.used_groups;
      Impl::Batch::Group& group = batch.groups[g];
      group.latency = bf.latency;
      group.slots.clear();
      group.event = m.sim.after(bf.latency, [&m, b, g] { m.activate_group(b, g); });
    }
    batch.groups[g].slots.push_back(slot);
    m.flows[slot].activation = batch.groups[g].event;
  }
  return first;
}

void FlowNetwork::Impl::activate_group(uint32_t b, uint32_t g) {
  // Index, not reference: a member finishing (zero bytes) only counts down, but keep it plain.
  for (size_t i = 0; i < batches[b].groups[g].slots.size(); ++i) activate(batches[b].groups[g].slots[i]);
}

void FlowNetwork::Impl::member_done(uint32_t slot) {
  const uint32_t b = flows[slot].batch;
  if (--batches[b].pending > 0) return;
  sim.at(sim.now(), std::move(batches[b].on_done));
  batches[b].on_done = nullptr;
  free_batches.push_back(b);
}

}  // namespace plansim
