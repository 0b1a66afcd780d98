#pragma once
// An indexed 4-ary min-heap of flow slots keyed by (predicted finish time, flow id): the flow
// network's "which flow lands next". Supports update and removal by slot in O(log n), so a re-solve
// that changes a component's rates moves only those flows, and the heap never holds stale entries.
// Ties are broken by flow id (creation order), never by slot or address: keys are unique, so the
// order in which flows come out is that of their keys, whatever the heap's shape. Four children per
// node instead of two halve the levels a removal sifts through (the MoE benchmark pops 5 M flows),
// and a node's children share one or two cache lines.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/core/assert.hpp"

namespace plansim {

class CompletionHeap {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] size_t size() const { return heap_.size(); }
  [[nodiscard]] uint32_t top_slot() const { return heap_.front().slot; }
  [[nodiscard]] int64_t top_time() const { return heap_.front().time; }
  [[nodiscard]] bool contains(uint32_t slot) const { return slot < pos_.size() && pos_[slot] != kNone; }

  // Inserts `slot` or moves it to its new key.
  void set(uint32_t slot, int64_t time, uint32_t id) {
    if (slot >= pos_.size()) pos_.resize(slot + 1, kNone);
    if (pos_[slot] == kNone) {
      pos_[slot] = static_cast<uint32_t>(heap_.size());
      heap_.push_back(Item{time, id, slot});
      up(pos_[slot]);
      return;
    }
    const uint32_t i = pos_[slot];
    const Item old = heap_[i];
    heap_[i].time = time;
    heap_[i].id = id;
    if (less(heap_[i], old)) up(i); else down(i);
  }
  void erase(uint32_t slot) {
    PLANSIM_ASSERT(contains(slot), "completion heap: erase of a slot that is not queued");
    const uint32_t i = pos_[slot];
    pos_[slot] = kNone;
    const uint32_t last = static_cast<uint32_t>(heap_.size() - 1);
    if (i != last) {
      const uint32_t moved = heap_[last].slot;
      heap_[i] = heap_[last];
      pos_[moved] = i;
      heap_.pop_back();
      up(i);
      down(pos_[moved]);
    } else {
      heap_.pop_back();
    }
  }

 private:
  static constexpr uint32_t kArity = 4;
  struct Item {
    int64_t time;
    uint32_t id;
    uint32_t slot;
  };
  static bool less(const Item& a, const Item& b) { return a.time != b.time ? a.time < b.time : a.id < b.id; }
  void place(uint32_t i, const Item& it) {
    heap_[i] = it;
    pos_[it.slot] = i;
  }
  void up(uint32_t i) {
    const Item it = heap_[i];
    while (i > 0) {
      const uint32_t p = (i - 1) / kArity;
      if (!less(it, heap_[p])) break;
      place(i, heap_[p]);
      i = p;
    }
    place(i, it);
  }
  void down(uint32_t i) {
    const Item it = heap_[i];
    const auto n = static_cast<uint32_t>(heap_.size());
    for (;;) {
      const uint32_t first = kArity * i + 1;
      if (first >= n) break;
      uint32_t c = first;
      const uint32_t end = std::min(first + kArity, n);
      for (uint32_t k = first + 1; k < end; ++k)
        if (less(heap_[k], heap_[c])) c = k;
      if (!less(heap_[c], it)) break;
      place(i, heap_[c]);
      i = c;
    }
    place(i, it);
  }

  std::vector<Item> heap_;
  std::vector<uint32_t> pos_;  // slot -> index in heap_, kNone when absent
};

}  // namespace plansim
