#include "sim/net/max_min.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include "sim/core/assert.hpp"

namespace plansim {

void MaxMinSolver::freeze(const MaxMinInstance& in, uint32_t f, double rate, uint32_t bound, std::span<double> rates,
                          std::span<uint32_t> bottleneck) {
  frozen_[f] = 1;
  --unfrozen_;
  rates[f] = rate;
  if (!bottleneck.empty()) bottleneck[f] = bound;
  const double w = in.flow_weight.empty() ? 1.0 : in.flow_weight[f];
  for (uint32_t e = in.flow_begin[f]; e < in.flow_begin[f + 1]; ++e) {
    const uint32_t l = in.entry_link[e];
    const double k = w * in.entry_mult[e];
    remaining_[l] = std::max(0.0, remaining_[l] - k * rate);
    weight_[l] -= k;
    if (!touched_flag_[l]) {
      touched_flag_[l] = 1;
      touched_.push_back(l);
    }
  }
}

// Re-queues the links whose level changed in the last step, once each (a step may freeze many
// flows over the same links; pushing per freeze would flood the heap with stale entries).
void MaxMinSolver::requeue_touched() {
  // Many links changed (a ring channel freezing touches all of its hops): update the entries in
  // place, drop the emptied ones and re-heapify in O(heap) instead of sifting each one in
  // O(log heap). The pop order is a total order on (level, link), so the rates are bit-identical.
  if (touched_.size() * 4 > heap_.size() && heap_.size() > 64) {
    for (uint32_t l : touched_) {
      touched_flag_[l] = 0;
      const uint32_t pos = heap_pos_[l];
      if (pos == kNotInHeap) continue;
      if (weight_[l] > 0.0) {
        heap_[pos].level = remaining_[l] / weight_[l];
      } else {
        heap_[pos].level = -1.0;  // marked for removal below
      }
    }
    touched_.clear();
    size_t out = 0;
    for (size_t i = 0; i < heap_.size(); ++i) {
      if (heap_[i].level < 0.0) {
        heap_pos_[heap_[i].link] = kNotInHeap;
        continue;
      }
      heap_[out++] = heap_[i];
    }
    heap_.resize(out);
    for (size_t i = 0; i < heap_.size(); ++i) heap_pos_[heap_[i].link] = static_cast<uint32_t>(i);
    for (size_t i = heap_.size() / 2; i > 0; --i) heap_sift_down(i - 1);
    return;
  }
  for (uint32_t l : touched_) {
    touched_flag_[l] = 0;
    if (weight_[l] > 0.0)
      heap_set(l, remaining_[l] / weight_[l]);
    else
      heap_remove(l);
  }
  touched_.clear();
}

void MaxMinSolver::heap_place(size_t i, HeapItem item) {
  heap_[i] = item;
  heap_pos_[item.link] = static_cast<uint32_t>(i);
}

void MaxMinSolver::heap_sift_up(size_t i) {
  const HeapItem item = heap_[i];
  while (i > 0) {
    const size_t parent = (i - 1) / 2;
    if (!(heap_[parent] > item)) break;
    heap_place(i, heap_[parent]);
    i = parent;
  }
  heap_place(i, item);
}

void MaxMinSolver::heap_sift_down(size_t i) {
  const HeapItem item = heap_[i];
  const size_t n = heap_.size();
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && heap_[c] > heap_[c + 1]) ++c;
    if (!(item > heap_[c])) break;
    heap_place(i, heap_[c]);
    i = c;
  }
  heap_place(i, item);
}

void MaxMinSolver::heap_set(uint32_t l, double level) {
  const uint32_t pos = heap_pos_[l];
  if (pos == kNotInHeap) {
    heap_.push_back(HeapItem{level, l});
    heap_sift_up(heap_.size() - 1);
    return;
  }
  heap_[pos].level = level;
  heap_sift_up(pos);
  heap_sift_down(heap_pos_[l]);
}

void MaxMinSolver::heap_remove(uint32_t l) {
  const uint32_t pos = heap_pos_[l];
  if (pos == kNotInHeap) return;
  heap_pos_[l] = kNotInHeap;
  const HeapItem last = heap_.back();
  heap_.pop_back();
  if (pos == heap_.size()) return;
  heap_place(pos, last);
  heap_sift_up(pos);
  heap_sift_down(heap_pos_[last.link]);
}

void MaxMinSolver::solve(const MaxMinInstance& in, std::span<double> rates, std::span<uint32_t> bottleneck) {
  const size_t nf = in.num_flows();
  const size_t nl = in.link_capacity.size();
  PLANSIM_ASSERT(rates.size() == nf, "max-min: rates span has the wrong size");
  PLANSIM_ASSERT(bottleneck.empty() || bottleneck.size() == nf, "max-min: bottleneck span has the wrong size");
  PLANSIM_ASSERT(in.flow_cap.size() == nf, "max-min: one cap per flow");
  PLANSIM_ASSERT(in.flow_weight.empty() || in.flow_weight.size() == nf, "max-min: one weight per flow");
  const size_t ne = nf == 0 ? 0 : in.flow_begin[nf];
  PLANSIM_ASSERT(in.entry_link.size() >= ne && in.entry_mult.size() >= ne, "max-min: incidence arrays too short");

  remaining_.assign(in.link_capacity.begin(), in.link_capacity.end());
  weight_.assign(nl, 0.0);
  frozen_.assign(nf, 0);
  touched_flag_.assign(nl, 0);
  touched_.clear();
  caps_.clear();
  heap_.clear();

  // Transpose: link -> flows crossing it (counting sort by link, flows in index order).
  link_begin_.assign(nl + 1, 0);
  for (size_t e = 0; e < ne; ++e) {
    PLANSIM_ASSERT(in.entry_link[e] < nl, "max-min: link index out of range");
    PLANSIM_ASSERT(in.entry_mult[e] > 0.0, "max-min: multiplicity must be positive");
    ++link_begin_[in.entry_link[e] + 1];
  }
  for (size_t l = 0; l < nl; ++l) link_begin_[l + 1] += link_begin_[l];
  link_flow_.resize(ne);
  {
    std::vector<uint32_t>& fill = link_begin_;  // reuse: shift back after filling
    for (uint32_t f = 0; f < nf; ++f)
      for (uint32_t e = in.flow_begin[f]; e < in.flow_begin[f + 1]; ++e) link_flow_[fill[in.entry_link[e]]++] = f;
    for (size_t l = nl; l > 0; --l) fill[l] = fill[l - 1];
    fill[0] = 0;
  }

  for (uint32_t f = 0; f < nf; ++f) {
    const double w = in.flow_weight.empty() ? 1.0 : in.flow_weight[f];
    PLANSIM_ASSERT(w > 0.0, "max-min: flow weight must be positive");
    PLANSIM_ASSERT(in.flow_cap[f] >= 0.0, "max-min: negative cap");
    for (uint32_t e = in.flow_begin[f]; e < in.flow_begin[f + 1]; ++e) weight_[in.entry_link[e]] += w * in.entry_mult[e];
    if (in.flow_begin[f] == in.flow_begin[f + 1]) {
      frozen_[f] = 1;  // crosses nothing: limited only by its cap
      rates[f] = in.flow_cap[f];
      if (!bottleneck.empty()) bottleneck[f] = kCapBound;
    } else if (in.flow_cap[f] < std::numeric_limits<double>::infinity()) {
      caps_.emplace_back(in.flow_cap[f], f);
    }
  }
  std::sort(caps_.begin(), caps_.end());
  heap_pos_.assign(nl, kNotInHeap);
  if (split_) {
    split_components(in, rates, bottleneck);
  } else {
    size_t unfrozen = 0;
    for (uint32_t f = 0; f < nf; ++f) unfrozen += frozen_[f] ? 0u : 1u;
    links_c_.clear();
    for (uint32_t l = 0; l < nl; ++l)
      if (weight_[l] > 0.0) links_c_.push_back(l);
    fill(in, links_c_, caps_, unfrozen, rates, bottleneck);
  }
  for (uint32_t f = 0; f < nf; ++f)
    PLANSIM_ASSERT(frozen_[f], "max-min: a flow was left without a rate");
}

void MaxMinSolver::fill(const MaxMinInstance& in, std::span<const uint32_t> links,
                        std::span<const std::pair<double, uint32_t>> caps, size_t nf, std::span<double> rates,
                        std::span<uint32_t> bottleneck) {
  heap_.clear();
  for (uint32_t l : links)
    if (weight_[l] > 0.0) {
      heap_pos_[l] = static_cast<uint32_t>(heap_.size());
      heap_.push_back(HeapItem{remaining_[l] / weight_[l], l});
    }
  for (size_t i = heap_.size() / 2; i > 0; --i) heap_sift_down(i - 1);
  unfrozen_ = nf;
  size_t next_cap = 0;
  while (unfrozen_ > 0) {  // stop as soon as every flow has its rate: the rest of the heap is stale
    while (next_cap < caps.size() && frozen_[caps[next_cap].second]) ++next_cap;
    const bool have_link = !heap_.empty();
    const bool have_cap = next_cap < caps.size();
    if (!have_link && !have_cap) break;
    if (have_cap && (!have_link || caps[next_cap].first <= heap_.front().level)) {
      const auto [cap, f] = caps[next_cap++];
      freeze(in, f, cap, kCapBound, rates, bottleneck);
      requeue_touched();
      continue;
    }
    const HeapItem top = heap_.front();
    heap_remove(top.link);
    // Link `top.link` saturates at this level: every unfrozen flow on it is bottlenecked here.
    for (uint32_t i = link_begin_[top.link]; i < link_begin_[top.link + 1]; ++i) {
      const uint32_t f = link_flow_[i];
      if (!frozen_[f]) freeze(in, f, top.level, top.link, rates, bottleneck);
    }
    requeue_touched();
  }
}

// What fill() would do for a flow alone in its component: its links enter the heap at
// remaining/weight, its cap wins a tie with the lowest level, and the lowest (level, link) pops first.
void MaxMinSolver::solve_alone(const MaxMinInstance& in, uint32_t f, std::span<double> rates,
                               std::span<uint32_t> bottleneck) {
  double level = std::numeric_limits<double>::infinity();
  uint32_t bound = kCapBound;
  for (uint32_t e = in.flow_begin[f]; e < in.flow_begin[f + 1]; ++e) {
    const uint32_t l = in.entry_link[e];
    const double v = remaining_[l] / weight_[l];
    if (v < level || (v == level && l < bound)) {
      level = v;
      bound = l;
    }
  }
  const double cap = in.flow_cap[f];
  if (cap < std::numeric_limits<double>::infinity() && cap <= level) {
    level = cap;
    bound = kCapBound;
  }
  frozen_[f] = 1;
  rates[f] = level;
  if (!bottleneck.empty()) bottleneck[f] = bound;
}

uint32_t MaxMinSolver::find(uint32_t l) {
  while (parent_[l] != l) {
    parent_[l] = parent_[parent_[l]];
    l = parent_[l];
  }
  return l;
}

void MaxMinSolver::split_components(const MaxMinInstance& in, std::span<double> rates, std::span<uint32_t> bottleneck) {
  const size_t nf = in.num_flows();
  const size_t nl = in.link_capacity.size();
  // Union-find over links: a flow joins all of its links.
  parent_.resize(nl);
  for (uint32_t l = 0; l < nl; ++l) parent_[l] = l;
  for (uint32_t f = 0; f < nf; ++f) {
    if (frozen_[f]) continue;  // crosses nothing
    const uint32_t a = find(in.entry_link[in.flow_begin[f]]);
    for (uint32_t e = in.flow_begin[f] + 1; e < in.flow_begin[f + 1]; ++e) {
      const uint32_t b = find(in.entry_link[e]);
      if (b != a) parent_[b] = a;
    }
  }
  // Components numbered in order of their lowest flow; count their flows.
  comp_of_.assign(nl, kNotInHeap);
  flow_comp_.assign(nf, kNotInHeap);
  comp_first_flow_.clear();
  std::vector<uint32_t>& count = comp_flows_;
  count.clear();
  for (uint32_t f = 0; f < nf; ++f) {
    if (frozen_[f]) continue;
    const uint32_t r = find(in.entry_link[in.flow_begin[f]]);
    if (comp_of_[r] == kNotInHeap) {
      comp_of_[r] = static_cast<uint32_t>(count.size());
      comp_first_flow_.push_back(f);
      count.push_back(0);
    }
    flow_comp_[f] = comp_of_[r];
    ++count[comp_of_[r]];
  }
  const size_t nc = count.size();
  for (size_t c = 0; c < nc; ++c)
    if (count[c] == 1) solve_alone(in, comp_first_flow_[c], rates, bottleneck);
  // The others: their links and their caps (CSR by component, in link and cap order), then a fill each.
  link_begin_c_.assign(nc + 1, 0);
  cap_begin_c_.assign(nc + 1, 0);
  for (uint32_t l = 0; l < nl; ++l)
    if (weight_[l] > 0.0) {
      const uint32_t c = comp_of_[find(l)];
      if (count[c] > 1) ++link_begin_c_[c + 1];
    }
  for (const auto& [cap, f] : caps_)
    if (count[flow_comp_[f]] > 1) ++cap_begin_c_[flow_comp_[f] + 1];
  for (size_t c = 0; c < nc; ++c) {
    link_begin_c_[c + 1] += link_begin_c_[c];
    cap_begin_c_[c + 1] += cap_begin_c_[c];
  }
  links_c_.resize(link_begin_c_[nc]);
  caps_c_.resize(cap_begin_c_[nc]);
  std::vector<uint32_t> link_pos(link_begin_c_.begin(), link_begin_c_.end() - 1);
  std::vector<uint32_t> cap_pos(cap_begin_c_.begin(), cap_begin_c_.end() - 1);
  for (uint32_t l = 0; l < nl; ++l)
    if (weight_[l] > 0.0) {
      const uint32_t c = comp_of_[find(l)];
      if (count[c] > 1) links_c_[link_pos[c]++] = l;
    }
  for (const auto& cf : caps_)
    if (count[flow_comp_[cf.second]] > 1) caps_c_[cap_pos[flow_comp_[cf.second]]++] = cf;
  for (size_t c = 0; c < nc; ++c) {
    if (count[c] < 2) continue;
    fill(in, std::span<const uint32_t>(links_c_).subspan(link_begin_c_[c], link_begin_c_[c + 1] - link_begin_c_[c]),
         std::span<const std::pair<double, uint32_t>>(caps_c_).subspan(cap_begin_c_[c], cap_begin_c_[c + 1] - cap_begin_c_[c]),
         count[c], rates, bottleneck);
  }
}

std::vector<double> max_min_rates(std::span<const double> link_capacity, std::span<const MaxMinFlow> flows) {
  std::vector<uint32_t> begin{0};
  std::vector<uint32_t> link;
  std::vector<double> mult;
  std::vector<double> cap;
  for (const MaxMinFlow& f : flows) {
    for (const auto& [l, k] : f.links) {
      link.push_back(l);
      mult.push_back(k);
    }
    begin.push_back(static_cast<uint32_t>(link.size()));
    cap.push_back(f.cap);
  }
  std::vector<double> rates(flows.size(), 0.0);
  MaxMinSolver solver;
  solver.solve(MaxMinInstance{link_capacity, begin, link, mult, cap, {}}, rates);
  return rates;
}

}  // namespace plansim
