#pragma once
// Topology::route's memo of computed paths: an open-addressing hash table keyed by (from, to) node
// pair, the paths in fixed blocks so that a returned span stays valid for the topology's lifetime.
// Routing a large plan's transfers looks up millions of pairs; a node-based std::unordered_map
// costs a division and two or three dependent cache misses per lookup, this one about one.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/ids.hpp"

namespace plansim::detail {

class RouteCache {
 public:
  RouteCache();
  // The cached path of key (from << 32 | to), or null.
  [[nodiscard]] const std::span<const LinkId>* find(uint64_t key) const {
    for (size_t i = slot_of(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.path;
      if (s.key == kEmpty) return nullptr;
    }
  }
  // Stores a path for a key not yet present; returns the stored span.
  std::span<const LinkId> insert(uint64_t key, std::span<const LinkId> path);
  [[nodiscard]] size_t size() const { return size_; }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};  // (from, to) = (max, max): never a key (from != to)
  struct Slot {
    uint64_t key = kEmpty;
    std::span<const LinkId> path;
  };
  [[nodiscard]] size_t slot_of(uint64_t key) const {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);  // Fibonacci hashing
  }
  void grow();

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
  size_t size_ = 0;
  std::vector<std::unique_ptr<LinkId[]>> blocks_;  // path storage; never moves
  size_t block_used_ = 0;
  size_t block_size_ = 0;
};

}  // namespace plansim::detail
