#include "sim/engine/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/assert.hpp"

namespace plansim {

EventId Simulation::at(Time t, Action a) {
  PLANSIM_ASSERT(t >= now_, fmt::format("event scheduled in the past ({} < {})", to_string(t), to_string(now_)));
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  PLANSIM_ASSERT(slot < (1U << kSlotBits) && next_seq_ < (uint64_t{1} << (64 - kSlotBits)),
                 "more events than the event queue can number");
  const uint64_t seq = next_seq_++;
  slots_[slot].action = std::move(a);
  slots_[slot].seq = seq;
  const Entry e{t, seq << kSlotBits | slot};
  if (t == now_) fifo_.push_back(e);
  else heap_push(e);
  ++live_;
  return EventId{seq, slot};
}

bool Simulation::cancel(EventId id) {
  if (!id.valid() || id.slot >= slots_.size() || slots_[id.slot].seq != id.seq) return false;
  slots_[id.slot].seq = 0;
  slots_[id.slot].action = nullptr;
  free_slots_.push_back(id.slot);
  --live_;
  return true;
}

bool Simulation::step(Time limit) {
  for (;;) {
    // The heap's events at now_ were scheduled before the FIFO's (see the header): they go first.
    const bool from_heap = !heap_.empty() && (fifo_head_ == fifo_.size() || heap_.front().time == now_);
    if (!from_heap && fifo_head_ == fifo_.size()) return false;
    const Entry e = from_heap ? heap_.front() : fifo_[fifo_head_];
    const bool live = slots_[e.slot()].seq == e.seq();  // else cancelled (slot freed, maybe reused)
    if (live && e.time > limit) return false;
    if (from_heap) {
      heap_pop();
    } else if (++fifo_head_ == fifo_.size()) {
      fifo_.clear();
      fifo_head_ = 0;
    }
    if (!live) continue;
    run_entry(e);
    return true;
  }
}

void Simulation::run_entry(const Entry& e) {
  Slot& slot = slots_[e.slot()];
  now_ = e.time;
  Action action = std::move(slot.action);
  slot.action = nullptr;
  slot.seq = 0;
  free_slots_.push_back(e.slot());
  --live_;
  ++processed_;
  action();
}

void Simulation::heap_push(const Entry& e) {
  size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const size_t parent = (i - 1) / 4;
    if (!(heap_[parent] > e)) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void Simulation::heap_pop() {
  const Entry last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return;
  size_t i = 0;
  for (;;) {
    const size_t first = 4 * i + 1;
    if (first >= n) break;
    size_t best = first;
    const size_t end = std::min(first + 4, n);
    for (size_t c = first + 1; c < end; ++c)
      if (heap_[best] > heap_[c]) best = c;
    if (!(last > heap_[best])) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
}

void Simulation::run() {
  while (step(Time::infinite())) {
  }
}

void Simulation::run_until(Time limit) {
  while (step(limit)) {
  }
  if (now_ < limit && limit != Time::infinite()) now_ = limit;
}

}  // namespace plansim
