// ReplicaOrbits: a spanning call's phase on the quotient, flow orbit by flow orbit (replica_orbits.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "sim/plan/replica_orbits.hpp"

namespace plansim {
namespace {

constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
using FlowShape = CollectiveRunner::FlowShape;

// What π must carry a flow onto: its links (sorted) and what it moves.
struct FlowKey {
  std::vector<LinkId> links;
  double bytes;
  int64_t latency_ps;
  double cap;
  auto operator<=>(const FlowKey&) const = default;
};

FlowKey key_of(const FlowShape& f, std::vector<LinkId> sorted_links) {
  return FlowKey{std::move(sorted_links), f.wire_bytes.value(), f.latency.picoseconds(), f.cap.value()};
}

std::vector<LinkId> sorted(std::span<const LinkId> links) {
  std::vector<LinkId> out(links.begin(), links.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

bool ReplicaOrbits::image(std::span<const LinkId> links, std::vector<LinkId>& out) const {
  out.clear();
  for (LinkId l : links) {
    const uint32_t n = next_[l.index()];
    if (n == kUnset) return false;
    out.emplace_back(n);
  }
  std::sort(out.begin(), out.end());
  return true;
}

bool ReplicaOrbits::quotient_of_orbit(std::span<const LinkId> links, size_t k, std::vector<LinkId>& out) {
  out.clear();
  std::vector<uint32_t> reps;  // in order of first crossing
  for (LinkId l : links) {
    const uint32_t r = rep_[l.index()];
    if (count_[r]++ == 0) reps.push_back(r);
  }
  bool ok = true;
  for (uint32_t r : reps) {
    // (k/|O|)·c_O crossings of the representative, with R/|O| = repeat_.
    const uint64_t share = static_cast<uint64_t>(k) * count_[r] * repeat_[r];
    if (ok && share % static_cast<uint64_t>(replicas_) != 0) {
      why_ = fmt::format(
          "a flow spanning the replicas crosses the orbit of {} {} times, not a whole share of its {} "
          "images",
          name(LinkId(r)), count_[r], k);
      ok = false;
    }
    if (ok) out.insert(out.end(), share / static_cast<uint64_t>(replicas_), LinkId(r));
    count_[r] = 0;
  }
  return ok;
}

bool ReplicaOrbits::project_phase(std::span<const FlowShape> flows, CollectiveRunner::FlowRewrite& out) {
  finalize();
  out.assign(flows.size(), std::nullopt);
  std::vector<uint8_t> done(flows.size(), 0);
  std::map<FlowKey, std::vector<size_t>> moved;  // flows π does not map onto themselves, by key
  std::vector<std::map<FlowKey, std::vector<size_t>>::iterator> key_at(flows.size(), moved.end());
  for (size_t i = 0; i < flows.size(); ++i) {
    if (!first_load_mismatch(flows[i].links)) {  // mapped onto itself
      std::vector<LinkId> kept;
      kept_links(flows[i].links, kept);
      out[i] = std::move(kept);
      done[i] = 1;
    } else {  // not mapped onto itself: maybe onto another flow, below
      key_at[i] = moved.try_emplace(key_of(flows[i], sorted(flows[i].links))).first;
      key_at[i]->second.push_back(i);
    }
  }
  std::vector<LinkId> img, q;
  for (size_t i = 0; i < flows.size(); ++i) {
    if (done[i]) continue;
    const auto first = key_at[i];
    std::vector<const std::vector<size_t>*> orbit{&first->second};
    std::vector<LinkId> cur = first->first.links;
    for (;;) {
      if (!image(cur, img)) {
        why_ = "a flow spanning the replicas that the symmetry moves crosses a link no replica's own transfer uses";
        return false;
      }
      if (img == first->first.links) break;
      const auto next = moved.find(key_of(flows[i], img));
      if (next == moved.end() || next->second.size() != first->second.size()) {
        why_ = fmt::format(
            "a transfer spanning the replicas has a flow over {} whose image in the next replica is not "
            "one of its flows",
            name(flows[i].links.front()));
        return false;
      }
      orbit.push_back(&next->second);
      cur = img;
      if (orbit.size() > static_cast<size_t>(replicas_)) {
        why_ = "a flow orbit longer than the replicas";
        return false;
      }
    }
    if (!quotient_of_orbit(flows[i].links, orbit.size(), q)) return false;
    for (size_t f : *orbit.front()) {
      out[f] = q;
      done[f] = 1;
    }
    for (size_t o = 1; o < orbit.size(); ++o)
      for (size_t f : *orbit[o]) done[f] = 1;  // stood for by the first
  }
  return true;
}

bool ReplicaOrbits::precheck_phase(std::span<const FlowShape> flows) {
  std::vector<FlowKey> keys;  // every flow's, sorted: built when a flow's image must be looked up
  std::vector<LinkId> img;
  for (const FlowShape& f : flows) {
    // Mapped onto itself so far, or not (the common case of an all-to-all's flows, so no message is built).
    if (!first_load_mismatch(f.links)) continue;
    if (!image(f.links, img)) continue;  // its image not known yet
    if (keys.empty()) {
      keys.reserve(flows.size());
      for (const FlowShape& g : flows) keys.push_back(key_of(g, sorted(g.links)));
      std::sort(keys.begin(), keys.end());
    }
    if (!std::binary_search(keys.begin(), keys.end(), key_of(f, img))) {
      why_ = fmt::format(
          "a transfer spanning the replicas has a flow over {} that is neither mapped onto itself nor "
          "onto another of its flows",
          name(f.links.front()));
      return false;
    }
  }
  return true;
}

}  // namespace plansim
