#include "sim/plan/replica_planes.hpp"

#include <fmt/format.h>

#include <limits>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {
constexpr uint32_t kUnset = std::numeric_limits<uint32_t>::max();
}  // namespace

ReplicaPlanes::ReplicaPlanes(const Topology& topo, int replicas)
    : topo_(topo), owner_(topo.links().size(), -1), image_(static_cast<size_t>(replicas)) {
  PLANSIM_ASSERT(replicas >= 1 && replicas <= 127, "replica planes: 1 to 127 replicas");
}

bool ReplicaPlanes::pair(int j, LinkId l0, LinkId lj) {
  PLANSIM_ASSERT(j >= 1 && static_cast<size_t>(j) < image_.size(), "replica planes: replica out of range");
  auto& image = image_[static_cast<size_t>(j)];
  if (image.empty()) image.assign(topo_.links().size(), kUnset);
  const auto name = [&](LinkId l) {
    const Link& k = topo_.link(l);
    return fmt::format("{} -> {}", topo_.node(k.src).name, topo_.node(k.dst).name);
  };
  int8_t& o0 = owner_[l0.index()];
  if (l0 == lj) {
    why_ = fmt::format("link {} carries replicas 0 and {}", name(l0), j);
    return false;
  }
  if (o0 > 0) {
    why_ = fmt::format("link {} carries replicas 0 and {}", name(l0), o0);
    return false;
  }
  uint32_t& mapped = image[l0.index()];
  if (mapped == lj.value) return true;
  if (mapped != kUnset) {
    why_ = fmt::format("replica {} uses both {} and {} where replica 0 uses {}", j, name(LinkId(mapped)), name(lj), name(l0));
    return false;
  }
  const int8_t oj = owner_[lj.index()];
  if (oj != -1) {
    why_ = oj == j ? fmt::format("replica {} uses {} where replica 0 uses two different links", j, name(lj))
                   : fmt::format("link {} carries replicas {} and {}", name(lj), oj, j);
    return false;
  }
  if (topo_.link(l0).bandwidth != topo_.link(lj).bandwidth) {
    why_ = fmt::format("replica {}'s link {} is not as fast as replica 0's {}", j, name(lj), name(l0));
    return false;
  }
  o0 = 0;
  owner_[lj.index()] = static_cast<int8_t>(j);
  mapped = lj.value;
  return true;
}

}  // namespace plansim
