#include "sim/topo/route_cache.hpp"

#include <algorithm>

#include "sim/core/assert.hpp"

namespace plansim::detail {

namespace {
constexpr size_t kBlock = 16384;  // LinkIds per storage block
}

RouteCache::RouteCache() {
  slots_.resize(1024);
  mask_ = slots_.size() - 1;
  shift_ = 64 - 10;
}

std::span<const LinkId> RouteCache::insert(uint64_t key, std::span<const LinkId> path) {
  PLANSIM_ASSERT(key != kEmpty && find(key) == nullptr, "route cache: bad or duplicate key");
  if (2 * (size_ + 1) > slots_.size()) grow();
  LinkId* out = nullptr;
  if (!path.empty()) {
    if (blocks_.empty() || block_used_ + path.size() > block_size_) {
      block_size_ = std::max(kBlock, path.size());
      blocks_.push_back(std::make_unique<LinkId[]>(block_size_));
      block_used_ = 0;
    }
    out = blocks_.back().get() + block_used_;
    std::copy(path.begin(), path.end(), out);
    block_used_ += path.size();
  }
  size_t i = slot_of(key);
  while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
  slots_[i] = Slot{key, std::span<const LinkId>(out, path.size())};
  ++size_;
  return slots_[i].path;
}

void RouteCache::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  --shift_;
  for (const Slot& s : old) {
    if (s.key == kEmpty) continue;
    size_t i = slot_of(s.key);
    while (slots_[i].key != kEmpty) i = (i + 1) & mask_;
    slots_[i] = s;
  }
}

}  // namespace plansim::detail
