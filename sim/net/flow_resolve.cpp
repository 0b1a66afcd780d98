// FlowNetwork re-solves: the connected component of flows reachable from each dirty link (flows
// sharing a link, transitively) is solved again; its flows whose rate changed are advanced to now at
// the old rate and get a new finish time. Flows outside it keep their rates and finish times.
// See flow_network.cpp for the lifecycle around this.
#include <fmt/format.h>

#include <algorithm>

#include "sim/core/assert.hpp"
#include "sim/net/flow_network_impl.hpp"

namespace plansim {

void FlowNetwork::Impl::resolve() {
  resolve_event = {};
  ++epoch;
  // Drop the refs finished flows left behind, once per dirty link. Only dirty links can hold
  // such refs (a finishing flow dirties all its links), so the searches below see live refs only.
  for (const uint32_t l : dirty) {
    if (link_state[l].compacted == epoch) continue;
    link_state[l].compacted = epoch;
    auto& lf = link_state[l].flows;
    lf.erase(std::remove_if(lf.begin(), lf.end(), [this](const LinkRef& r) { return !is_live(r); }), lf.end());
  }
  for (const uint32_t l : dirty)
    if (link_state[l].stamp != epoch && !link_state[l].flows.empty()) solve_component(l);
  dirty.clear();
  reschedule_completion();
}

// Breadth-first search from `seed_link` over links and the flows crossing them, then one max-min
// solve of that component. Flows outside it keep their rates.
void FlowNetwork::Impl::solve_component(uint32_t seed_link) {
  comp_flows.clear();
  comp_links.clear();
  link_state[seed_link].stamp = epoch;
  link_state[seed_link].local = 0;
  comp_links.push_back(seed_link);
  for (size_t q = 0; q < comp_links.size(); ++q) {
    for (const LinkRef& r : link_state[comp_links[q]].flows) {
      if (flow_stamp[r.slot] == epoch) continue;  // compact array: the common "seen" check stays in cache
      flow_stamp[r.slot] = epoch;
      comp_flows.push_back(r.slot);
      const Flow& f = flows[r.slot];
      for (const Entry& en : f.entries) {
        if (link_state[en.link].stamp == epoch) continue;
        link_state[en.link].stamp = epoch;
        link_state[en.link].local = static_cast<uint32_t>(comp_links.size());
        comp_links.push_back(en.link);
      }
    }
  }
  ++solves;
  if (comp_flows.size() == 1) {  // closed form: the tightest of its links and its cap
    const Flow& f = flows[comp_flows[0]];
    double r = f.cap;
    for (const Entry& en : f.entries) r = std::min(r, link_state[en.link].capacity / en.mult);
    set_rate(comp_flows[0], r);
  } else {
    group_flows();
    flow_begin.assign(1, 0);
    entry_link.clear();
    entry_mult.clear();
    flow_cap.clear();
    for (size_t g = 0; g < group_weight.size(); ++g) {
      const Flow& f = flows[group_rep[g]];
      for (const Entry& en : f.entries) {
        entry_link.push_back(link_state[en.link].local);
        entry_mult.push_back(en.mult);
      }
      flow_begin.push_back(static_cast<uint32_t>(entry_link.size()));
      flow_cap.push_back(f.cap);
    }
    link_cap.clear();
    for (uint32_t l : comp_links) link_cap.push_back(link_state[l].capacity);
    rates.resize(group_weight.size());
    solver.solve(MaxMinInstance{link_cap, flow_begin, entry_link, entry_mult, flow_cap, group_weight}, rates);
    for (size_t i = 0; i < comp_flows.size(); ++i) set_rate(comp_flows[i], rates[flow_group[i]]);
  }
  if (check) check_links(comp_links);
}

// A flow whose rate did not change keeps its lazy state and its finish time untouched; otherwise it
// is advanced to now at the old rate and its finish time is recomputed at the new one.
void FlowNetwork::Impl::set_rate(uint32_t slot, double rate) {
  Flow& f = flows[slot];
  if (rate == f.rate) return;
  const Time now = sim.now();
  f.remaining = std::max(0.0, f.remaining - f.rate * (now - f.last).seconds());
  f.last = now;
  f.rate = rate;
  set_finish(slot);
}

// Folds flows with the same links (same multiplicities, listed in the same order) and the same cap
// into one weighted solver entry: max-min gives them equal rates, so the solver sees each such
// group once. Symmetric traffic (several channels of one ring, repeated transfers between the same
// pair) shrinks to a few entries. Not merging two equal flows is still correct, only slower.
void FlowNetwork::Impl::group_flows() {
  size_t size = 16;
  while (size < 2 * comp_flows.size()) size *= 2;
  group_table.assign(size, CompletionHeap::kNone);
  group_rep.clear();
  group_weight.clear();
  flow_group.resize(comp_flows.size());
  for (size_t i = 0; i < comp_flows.size(); ++i) {
    const Flow& f = flows[comp_flows[i]];
    size_t h = f.key & (size - 1);
    for (;;) {
      const uint32_t g = group_table[h];
      if (g == CompletionHeap::kNone) {
        group_table[h] = static_cast<uint32_t>(group_rep.size());
        flow_group[i] = static_cast<uint32_t>(group_rep.size());
        group_rep.push_back(comp_flows[i]);
        group_weight.push_back(1.0);
        break;
      }
      const Flow& r = flows[group_rep[g]];
      if (r.key == f.key && r.cap == f.cap && r.entries.size() == f.entries.size() &&
          std::equal(r.entries.begin(), r.entries.end(), f.entries.begin(),
                     [](const Entry& a, const Entry& b) { return a.link == b.link && a.mult == b.mult; })) {
        flow_group[i] = g;
        group_weight[g] += 1.0;
        break;
      }
      h = (h + 1) & (size - 1);
    }
  }
}

void FlowNetwork::Impl::check_links(std::span<const uint32_t> ids) const {
  for (uint32_t l : ids) {
    const double load = this->load(l);
    PLANSIM_ASSERT(load <= link_state[l].capacity * (1 + 1e-9),
                   fmt::format("link {} carries {} B/s over its {} B/s", l, load, link_state[l].capacity));
  }
}

double FlowNetwork::Impl::load(uint32_t link) const {
  double sum = 0;
  for (const LinkRef& r : link_state[link].flows)
    if (is_live(r)) sum += flows[r.slot].rate * flows[r.slot].entries[r.entry].mult;
  return sum;
}

}  // namespace plansim
