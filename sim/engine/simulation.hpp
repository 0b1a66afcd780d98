#pragma once
// The discrete-event core: a clock and a queue of actions ordered by (time, sequence), so that
// events at the same time run in the order they were scheduled (deterministic, never by pointer).
// Cancellation is lazy: a cancelled event stays queued and is skipped when popped.
// Events scheduled for the current time (zero delay: a finished flow's callback, a re-solve) skip the
// heap: they go to a FIFO that runs after the heap's events at that time, which is exactly (time,
// sequence) order, because every heap event at time t was scheduled before the clock reached t.
// One Simulation per run; models (flow network, compute streams) hold a reference to it.
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/core/units.hpp"

namespace plansim {

struct EventId {
  uint64_t seq = 0;   // 0 = none
  uint32_t slot = 0;  // where its action is stored (checked against seq, so reuse is safe)
  [[nodiscard]] bool valid() const { return seq != 0; }
};

class Simulation {
 public:
  using Action = std::function<void()>;

  [[nodiscard]] Time now() const { return now_; }
  // Schedules `a` at absolute time t (>= now). Returns an id usable with cancel().
  EventId at(Time t, Action a);
  EventId after(Time dt, Action a) { return at(now_ + dt, std::move(a)); }
  // Cancels a pending event; returns false if it already ran or was cancelled.
  bool cancel(EventId id);
  // Runs events until the queue is empty (or until `limit`, leaving later events queued).
  void run();
  void run_until(Time limit);

  [[nodiscard]] uint64_t events_processed() const { return processed_; }
  [[nodiscard]] size_t pending() const { return live_; }

 private:
  // 16 bytes, so a node's four children share one cache line: the sequence number in the high
  // 40 bits of `tag` (a trillion events) and the slot in the low 24 (16 M events pending at once).
  // Sequence numbers are unique, so ordering by tag is ordering by sequence.
  static constexpr int kSlotBits = 24;
  struct Entry {
    Time time;
    uint64_t tag;
    [[nodiscard]] uint64_t seq() const { return tag >> kSlotBits; }
    [[nodiscard]] uint32_t slot() const { return static_cast<uint32_t>(tag & ((uint64_t{1} << kSlotBits) - 1)); }
    bool operator>(const Entry& o) const { return time != o.time ? time > o.time : tag > o.tag; }
  };
  struct Slot {
    Action action;
    uint64_t seq = 0;  // the event occupying this slot; 0 when free
  };
  bool step(Time limit);
  void run_entry(const Entry& e);
  void heap_push(const Entry& e);
  void heap_pop();

  Time now_ = Time::zero();
  uint64_t next_seq_ = 1;
  uint64_t processed_ = 0;
  size_t live_ = 0;
  // A 4-ary min-heap on (time, seq): half the depth of a binary heap, and a node's children share
  // a cache line or two, which matters with millions of pending events.
  std::vector<Entry> heap_;
  std::vector<Entry> fifo_;  // events at time now_, in scheduling order, from fifo_head_ on
  size_t fifo_head_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace plansim
