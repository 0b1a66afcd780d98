#include "sim/plan/replica_planes.hpp"

#include <fmt/format.h>

#include <limits>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {
constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
}  // namespace

ReplicaPlanes::ReplicaPlanes(const Topology& topo, int replicas)
    : topo_(topo),
      replicas_(replicas),
      owner_(topo.links().size(), -1),
      slot_(topo.links().size(), kUnset),
      spanned_(topo.links().size(), 0),
      count_(topo.links().size(), 0) {
  PLANSIM_ASSERT(replicas >= 1, "replica planes: at least one replica");
}

std::string ReplicaPlanes::name(LinkId l) const {
  const Link& k = topo_.link(l);
  return fmt::format("{} -> {}", topo_.node(k.src).name, topo_.node(k.dst).name);
}

bool ReplicaPlanes::pair(int j, LinkId l0, LinkId lj) {
  PLANSIM_ASSERT(j >= 1 && j < replicas_, "replica planes: replica out of range");
  const auto r = static_cast<size_t>(replicas_);
  const int32_t o0 = owner_[l0.index()];
  if (l0 == lj) {
    why_ = fmt::format("link {} carries replicas 0 and {}", name(l0), j);
    return false;
  }
  if (o0 > 0) {
    why_ = fmt::format("link {} carries replicas 0 and {}", name(l0), o0);
    return false;
  }
  if (o0 == 0) {
    const uint32_t mapped = image_[slot_[l0.index()] * r + static_cast<size_t>(j)];
    if (mapped == lj.value) return true;
    if (mapped != kUnset) {
      why_ = fmt::format("replica {} uses both {} and {} where replica 0 uses {}", j, name(LinkId(mapped)), name(lj),
                         name(l0));
      return false;
    }
  }
  const int32_t oj = owner_[lj.index()];
  if (oj != -1) {
    why_ = oj == j ? fmt::format("replica {} uses {} where replica 0 uses two different links", j, name(lj))
                   : fmt::format("link {} carries replicas {} and {}", name(lj), oj, j);
    return false;
  }
  if (topo_.link(l0).bandwidth != topo_.link(lj).bandwidth) {
    why_ = fmt::format("replica {}'s link {} is not as fast as replica 0's {}", j, name(lj), name(l0));
    return false;
  }
  for (LinkId l : {l0, lj})
    if (spanned_[l.index()] && owner_[l.index()] == -1) {
      why_ = fmt::format("link {} joins replica {}'s plane after a transfer spanning the replicas crossed it", name(l),
                         l == l0 ? 0 : j);
      return false;
    }
  if (o0 == -1) {
    owner_[l0.index()] = 0;
    slot_[l0.index()] = static_cast<uint32_t>(image_.size() / r);
    image_.resize(image_.size() + r, kUnset);
  }
  owner_[lj.index()] = j;
  slot_[lj.index()] = l0.value;
  image_[slot_[l0.index()] * r + static_cast<size_t>(j)] = lj.value;
  return true;
}

bool ReplicaPlanes::project(std::span<const LinkId> links, std::vector<LinkId>& kept) {
  const auto r = static_cast<size_t>(replicas_);
  for (LinkId l : links) ++count_[l.index()];
  bool ok = true;
  for (LinkId l : links) {
    if (!ok) break;
    const int32_t o = owner_[l.index()];
    if (o < 0) continue;
    const uint32_t l0 = o == 0 ? l.value : slot_[l.index()];
    const uint32_t row = slot_[l0];
    for (size_t j = 0; j < r && ok; ++j) {
      const uint32_t img = j == 0 ? l0 : image_[row * r + j];
      if (img == kUnset || count_[img] != count_[l.index()]) {
        why_ = img == kUnset ? fmt::format("a transfer spanning the replicas crosses {}, which replica {} has no image of",
                                           name(LinkId(l0)), j)
                             : fmt::format("a transfer spanning the replicas crosses {} {} times but its image {} (replica "
                                           "{}) {} times",
                                           name(l), count_[l.index()], name(LinkId(img)), j, count_[img]);
        ok = false;
      }
    }
  }
  for (LinkId l : links) count_[l.index()] = 0;
  if (!ok) return false;
  kept.clear();
  for (LinkId l : links) {
    spanned_[l.index()] = 1;
    if (owner_[l.index()] <= 0) kept.push_back(l);
  }
  return true;
}

}  // namespace plansim
