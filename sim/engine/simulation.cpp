#include "sim/engine/simulation.hpp"

#include <fmt/format.h>

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
  const uint64_t seq = next_seq_++;
  slots_[slot].action = std::move(a);
  slots_[slot].seq = seq;
  heap_.push(Entry{t, seq, slot});
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
  while (!heap_.empty()) {
    const Entry e = heap_.top();
    Slot& slot = slots_[e.slot];
    if (slot.seq != e.seq) {  // cancelled (slot freed, maybe reused by a later event)
      heap_.pop();
      continue;
    }
    if (e.time > limit) return false;
    heap_.pop();
    now_ = e.time;
    Action action = std::move(slot.action);
    slot.action = nullptr;
    slot.seq = 0;
    free_slots_.push_back(e.slot);
    --live_;
    ++processed_;
    action();
    return true;
  }
  return false;
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
