// FlowNetwork re-solves: local, exact, incremental max-min.
//
// The allocation kept between events is max-min fair, which is characterised locally: every flow is
// either at its cap or has a *bottleneck*, a saturated link on which no flow is faster; an
// allocation with that property is the (unique) max-min fair one, for any positive multiplicities.
// Each flow remembers its bottleneck (FlowHot::bottleneck).
//
// When flows join or leave, only flows whose bottleneck property may break are re-solved:
//  1. seeds: the new flows, and the flows whose bottleneck is a link a flow joined or left;
//  2. the subproblem S is solved by water-filling over S's links, each with the capacity the flows
//     outside S leave (outside flows keep their rates);
//  3. the result is checked on every link of S against the flows outside S crossing it: an outside
//     flow faster than an S flow bottlenecked on that link, or an outside flow whose own bottleneck
//     is that link and which lost the property (link no longer saturated, or an S flow now faster),
//     joins S, and S is solved again (outside flows' rates have not been touched yet);
//  4. when no check fails, S's rates are committed. Every flow then has a valid bottleneck: S flows
//     by construction and the check, outside flows whose bottleneck S does not cross because nothing
//     on it changed, the others because they were checked.
// So a point-to-point transfer starting beside an unrelated ring costs the links it crosses, not the
// ring's whole connected component. If S keeps growing (max_rounds, 32 by default), every connected
// component S touches (flows sharing links, transitively) is solved from scratch instead: the plain
// method (on the 16,384-GPU Llama 3 405B plan no re-solve needs more than 32 rounds).
// Comparisons use a relative tolerance of kTol, so rates agree with a from-scratch solve to ~1e-9.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sim/core/assert.hpp"
#include "sim/net/flow_network_impl.hpp"

namespace plansim {
namespace {
constexpr double kTol = 1e-9;
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

void FlowNetwork::Impl::resolve() {
  resolve_event = {};
  ++epoch;
  // Once per dirty link: drop the refs finished flows left behind (only dirty links can hold such
  // refs: a finishing flow dirties all its links), so everything below sees live refs only; then
  // take its flows whose bottleneck the change can break as seeds. Links are fetched a few ahead:
  // each is a cache miss, and they are independent.
  comp_flows.clear();
  comp_links.clear();
  sub_refs.clear();
  for (size_t k = 0; k < dirty.size(); ++k) {
    if (k + kAhead < dirty.size()) prefetch(&link_state[dirty[k + kAhead]]);
    const uint32_t l = dirty[k];
    if (link_state[l].compacted == epoch) continue;
    link_state[l].compacted = epoch;
    // One pass: live refs are kept in order, and examined as seeds in that order.
    auto& lf = link_state[l].flows;
    size_t kept = 0;
    for (size_t i = 0; i < lf.size(); ++i) {
      const LinkRef r = lf[i];
      if (!is_live(r)) continue;
      lf[kept++] = r;
      const uint32_t b = hot[r.slot].bottleneck;
      if (b == kUnsolved || b == l) add_to_subproblem(r.slot);
    }
    lf.resize(kept);
  }
  dirty.clear();
  ++dirty_round;
  if (!comp_flows.empty() && !solve_subproblem()) {
    ++fallbacks;
    solve_components();
  }
  reschedule_completion();
}

void FlowNetwork::Impl::add_to_subproblem(uint32_t slot) {
  if (hot[slot].stamp == epoch) return;
  hot[slot].stamp = epoch;
  comp_flows.push_back(slot);
}

bool FlowNetwork::Impl::solve_subproblem() {
  size_t linked = 0;  // comp_flows[0, linked) have their links in comp_links (and comp_entry)
  comp_entry_begin.assign(1, 0);
  comp_entry.clear();
  for (int round = 0; round < max_rounds; ++round) {
    for (; linked < comp_flows.size(); ++linked) {
      for (const Entry& en : flows[comp_flows[linked]].entries) {
        LinkState& ls = link_state[en.link];
        if (ls.stamp != epoch) {
          ls.stamp = epoch;
          ls.local = static_cast<uint32_t>(comp_links.size());
          comp_links.push_back(en.link);
          sub_refs.push_back(0);
        }
        ++sub_refs[ls.local];
        comp_entry.push_back(Entry{ls.local, en.mult});
      }
      comp_entry_begin.push_back(static_cast<uint32_t>(comp_entry.size()));
    }
    // What the flows outside S use of each link; S gets the rest. A link whose every ref is an S
    // flow's (all refs are live here, and a flow has one ref per distinct link) has none outside:
    // its sum is the empty sum, 0, without visiting its refs (most links of a re-solve are such).
    const size_t nl = comp_links.size();
    outside_load.assign(nl, 0.0);
    link_cap.resize(nl);
    for (size_t i = 0; i < nl; ++i) {
      const LinkState& ls = link_state[comp_links[i]];
      double load = 0;
      if (sub_refs[i] != ls.flows.size()) {
        for (const LinkRef& r : ls.flows)
          if (hot[r.slot].stamp != epoch) load += hot[r.slot].rate * r.mult;
      } else if (check) {
        for (const LinkRef& r : ls.flows)
          PLANSIM_ASSERT(is_live(r) && hot[r.slot].stamp == epoch, "a re-solve skipped a link that an outside flow uses");
      }
      outside_load[i] = load;
      link_cap[i] = std::max(0.0, ls.capacity - load);
    }
    solve_flows(link_cap);
    // Check S's rates against the outside flows on S's links.
    sub_load.assign(nl, 0.0);
    sub_max.assign(nl, 0.0);
    sub_bound_min.assign(nl, kInf);
    for (size_t g = 0; g < group_rep.size(); ++g) {
      const double rate = rates[g];
      for (uint32_t e = flow_begin[g]; e < flow_begin[g + 1]; ++e) {
        const uint32_t i = entry_link[e];
        sub_load[i] += group_weight[g] * entry_mult[e] * rate;
        sub_max[i] = std::max(sub_max[i], rate);
      }
      if (group_bottleneck[g] != MaxMinSolver::kCapBound)
        sub_bound_min[group_bottleneck[g]] = std::min(sub_bound_min[group_bottleneck[g]], rate);
    }
    const size_t before = comp_flows.size();
    for (size_t i = 0; i < nl; ++i) {
      const uint32_t l = comp_links[i];
      const LinkState& ls = link_state[l];
      if (sub_refs[i] == ls.flows.size()) continue;  // no outside flow to check
      const bool saturated = outside_load[i] + sub_load[i] >= ls.capacity * (1 - kTol);
      const double faster_than = sub_bound_min[i] * (1 + kTol);
      const double keeps_max = sub_max[i] * (1 - kTol);
      for (const LinkRef& r : ls.flows) {
        const FlowHot& g = hot[r.slot];
        if (g.stamp == epoch) continue;
        if (g.rate > faster_than || (g.bottleneck == l && (!saturated || g.rate < keeps_max)))
          add_to_subproblem(r.slot);
      }
    }
    if (comp_flows.size() == before) {
      commit_rates();
      return true;
    }
  }
  return false;
}

// The plain method: every connected component (flows sharing links, transitively) that the
// subproblem's flows belong to, solved from scratch.
void FlowNetwork::Impl::solve_components() {
  std::vector<uint32_t> seeds;
  for (const uint32_t slot : comp_flows)
    for (const Entry& en : flows[slot].entries) seeds.push_back(en.link);
  ++epoch;
  for (const uint32_t l : seeds)
    if (link_state[l].stamp != epoch && !link_state[l].flows.empty()) solve_component(l);
}

// Breadth-first search from `seed_link` over links and the flows crossing them, then one max-min
// solve of that component. Flows outside it keep their rates.
void FlowNetwork::Impl::solve_component(uint32_t seed_link) {
  comp_flows.clear();
  comp_links.clear();
  comp_entry_begin.assign(1, 0);
  comp_entry.clear();
  link_state[seed_link].stamp = epoch;
  link_state[seed_link].local = 0;
  comp_links.push_back(seed_link);
  for (size_t q = 0; q < comp_links.size(); ++q) {
    for (const LinkRef& r : link_state[comp_links[q]].flows) {
      if (hot[r.slot].stamp == epoch) continue;  // compact array: the common "seen" check stays in cache
      hot[r.slot].stamp = epoch;
      comp_flows.push_back(r.slot);
      const Flow& f = flows[r.slot];
      for (const Entry& en : f.entries) {
        LinkState& ls = link_state[en.link];
        if (ls.stamp != epoch) {
          ls.stamp = epoch;
          ls.local = static_cast<uint32_t>(comp_links.size());
          comp_links.push_back(en.link);
        }
        comp_entry.push_back(Entry{ls.local, en.mult});
      }
      comp_entry_begin.push_back(static_cast<uint32_t>(comp_entry.size()));
    }
  }
  link_cap.clear();
  for (uint32_t l : comp_links) link_cap.push_back(link_state[l].capacity);
  solve_flows(link_cap);
  commit_rates();
}

// Max-min rates of comp_flows over comp_links with the given capacities (by local index), identical
// flows folded: rates[g], group_bottleneck[g] (a local link index or kCapBound) per group. The
// groups' incidences (flow_begin, entry_link, entry_mult: local links, from comp_entry) are left for
// the subproblem's check.
void FlowNetwork::Impl::solve_flows(std::span<const double> capacity) {
  ++solves;
  group_flows();
  const size_t ng = group_rep.size();
  rates.resize(ng);
  group_bottleneck.resize(ng);
  flow_begin.assign(1, 0);
  entry_link.clear();
  entry_mult.clear();
  flow_cap.clear();
  for (size_t g = 0; g < ng; ++g) {
    const uint32_t i = group_first[g];
    for (uint32_t e = comp_entry_begin[i]; e < comp_entry_begin[i + 1]; ++e) {
      entry_link.push_back(comp_entry[e].link);
      entry_mult.push_back(comp_entry[e].mult);
    }
    flow_begin.push_back(static_cast<uint32_t>(entry_link.size()));
    flow_cap.push_back(flows[group_rep[g]].cap);
  }
  if (ng == 1) {  // closed form: the tightest of its links (shared by its w copies) and its cap
    double r = flow_cap[0];
    uint32_t bound = MaxMinSolver::kCapBound;
    for (size_t e = 0; e < entry_link.size(); ++e) {
      const uint32_t i = entry_link[e];
      const double share = capacity[i] / (group_weight[0] * entry_mult[e]);
      if (share < r) {
        r = share;
        bound = i;
      }
    }
    rates[0] = r;
    group_bottleneck[0] = bound;
    return;
  }
  memo.solve(solver, MaxMinInstance{capacity, flow_begin, entry_link, entry_mult, flow_cap, group_weight}, rates,
             group_bottleneck);
}

void FlowNetwork::Impl::commit_rates() {
  for (size_t i = 0; i < comp_flows.size(); ++i) {
    const uint32_t g = flow_group[i];
    const uint32_t bound = group_bottleneck[g];
    hot[comp_flows[i]].bottleneck = bound == MaxMinSolver::kCapBound ? kCapped : comp_links[bound];
    set_rate(comp_flows[i], rates[g]);
  }
  if (check) check_links(comp_links);
}

// A flow whose rate did not change keeps its lazy state and its finish time untouched; otherwise it
// is advanced to now at the old rate and its finish time is recomputed at the new one.
void FlowNetwork::Impl::set_rate(uint32_t slot, double rate) {
  const double old = hot[slot].rate;
  if (rate == old) return;
  Flow& f = flows[slot];
  const Time now = sim.now();
  f.remaining = std::max(0.0, f.remaining - old * (now - f.last).seconds());
  f.last = now;
  hot[slot].rate = rate;
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
  group_first.clear();
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
        group_first.push_back(static_cast<uint32_t>(i));
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
    if (is_live(r)) sum += hot[r.slot].rate * r.mult;
  return sum;
}

}  // namespace plansim
