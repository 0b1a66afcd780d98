#include "sim/plan/replica_orbits.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {
constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
}  // namespace

ReplicaOrbits::ReplicaOrbits(const Topology& topo, int replicas)
    : topo_(topo),
      replicas_(replicas),
      next_(topo.links().size(), kUnset),
      prev_(topo.links().size(), kUnset),
      base_(topo.links().size(), 0),
      count_(topo.links().size(), 0) {
  PLANSIM_ASSERT(replicas >= 1, "replica orbits: at least one replica");
}

std::string ReplicaOrbits::name(LinkId l) const {
  const Link& k = topo_.link(l);
  return fmt::format("{} -> {}", topo_.node(k.src).name, topo_.node(k.dst).name);
}

bool ReplicaOrbits::pair(int j, LinkId a, LinkId b) {
  PLANSIM_ASSERT(j >= 0 && j < replicas_, "replica orbits: replica out of range");
  const uint32_t na = next_[a.index()];
  const uint32_t pb = prev_[b.index()];
  if (na == b.value && pb == a.value) {
    if (j == 0) base_[a.index()] = 1;
    return true;
  }
  if (final_) {
    why_ = fmt::format("replica {} follows link {} with {}, not seen before the symmetry was fixed", j, name(a), name(b));
    return false;
  }
  if (na != kUnset) {
    why_ = fmt::format("link {} is followed by both {} and {} in the next replica", name(a), name(LinkId(na)), name(b));
    return false;
  }
  if (pb != kUnset) {
    why_ = fmt::format("link {} follows both {} and {} of the previous replica", name(b), name(LinkId(pb)), name(a));
    return false;
  }
  if (topo_.link(a).bandwidth != topo_.link(b).bandwidth) {
    why_ = fmt::format("replica {}'s link {} is not as fast as the next replica's {}", j, name(a), name(b));
    return false;
  }
  next_[a.index()] = b.value;
  prev_[b.index()] = a.value;
  if (j == 0) base_[a.index()] = 1;
  return true;
}

void ReplicaOrbits::finalize() {
  if (final_) return;
  final_ = true;
  const size_t n = next_.size();
  rep_.assign(n, kUnset);
  repeat_.assign(n, 0);
  std::vector<uint32_t> orbit;
  for (size_t l = 0; l < n; ++l) {
    if (next_[l] == kUnset || rep_[l] != kUnset) continue;
    orbit.clear();
    uint32_t rep = kUnset;
    for (uint32_t x = static_cast<uint32_t>(l);;) {
      PLANSIM_ASSERT(x != kUnset, "replica orbits: a link paired from but not to");
      orbit.push_back(x);
      if (base_[x] && (rep == kUnset || x < rep)) rep = x;
      x = next_[x];
      if (x == l) break;
      PLANSIM_ASSERT(orbit.size() <= static_cast<size_t>(replicas_), "replica orbits: π^R is not the identity");
    }
    PLANSIM_ASSERT(rep != kUnset && replicas_ % static_cast<int>(orbit.size()) == 0,
                   "replica orbits: an orbit without replica 0, or of a size not dividing R");
    if (orbit.size() < static_cast<size_t>(replicas_)) ++shared_orbits_;
    for (uint32_t x : orbit) {
      rep_[x] = rep;
      repeat_[x] = static_cast<uint32_t>(replicas_ / static_cast<int>(orbit.size()));
    }
  }
}

bool ReplicaOrbits::quotient(std::span<const LinkId> links, std::vector<LinkId>& out) {
  finalize();
  out.clear();
  for (LinkId l : links) {
    if (rep_[l.index()] == kUnset) {
      why_ = fmt::format("a replica-0 transfer crosses {}, which no pairing of replicas covers", name(l));
      return false;
    }
    out.insert(out.end(), repeat_[l.index()], LinkId(rep_[l.index()]));
  }
  return true;
}

std::optional<ReplicaOrbits::LoadMismatch> ReplicaOrbits::first_load_mismatch(std::span<const LinkId> links) {
  for (LinkId l : links) ++count_[l.index()];
  std::optional<LoadMismatch> bad;
  for (LinkId l : links) {
    const uint32_t img = next_[l.index()];
    if (img == kUnset || count_[img] == count_[l.index()]) continue;
    bad = LoadMismatch{l, LinkId(img), count_[l.index()], count_[img]};
    break;
  }
  for (LinkId l : links) count_[l.index()] = 0;
  return bad;
}

bool ReplicaOrbits::precheck(std::span<const LinkId> links) {
  const std::optional<LoadMismatch> bad = first_load_mismatch(links);
  if (!bad) return true;
  why_ = fmt::format("a transfer spanning the replicas crosses {} {} times but its image {} in the next replica {} times",
                     name(bad->link), bad->crossings, name(bad->image), bad->image_crossings);
  return false;
}

bool ReplicaOrbits::project(std::span<const LinkId> links, std::vector<LinkId>& kept) {
  finalize();
  if (!precheck(links)) return false;
  kept_links(links, kept);
  return true;
}

void ReplicaOrbits::kept_links(std::span<const LinkId> links, std::vector<LinkId>& kept) const {
  kept.clear();
  for (LinkId l : links)
    if (next_[l.index()] == kUnset || rep_[l.index()] == l.value) kept.push_back(l);
}

}  // namespace plansim
