#pragma once
// Pools that recycle indices (events, flows, runs): the last freed index if any, else a new one
// made by `grow`, which appends to the pool's storage and returns the new index.
#include <cstdint>
#include <vector>

namespace plansim {

template <class Grow>
uint32_t take_free_slot(std::vector<uint32_t>& free, Grow&& grow) {
  if (free.empty()) return grow();
  const uint32_t slot = free.back();
  free.pop_back();
  return slot;
}

}  // namespace plansim
