#pragma once
// The discrete-event core: a clock and a queue of actions ordered by (time, sequence), so that
// events at the same time run in the order they were scheduled (deterministic, never by pointer).
// Cancellation is lazy: a cancelled event stays in the heap and is skipped when popped.
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
  struct Entry {
    Time time;
    uint64_t seq;
    uint32_t slot;
    bool operator>(const Entry& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  struct Slot {
    Action action;
    uint64_t seq = 0;  // the event occupying this slot; 0 when free
  };
  bool step(Time limit);
  void heap_push(const Entry& e);
  void heap_pop();

  Time now_ = Time::zero();
  uint64_t next_seq_ = 1;
  uint64_t processed_ = 0;
  size_t live_ = 0;
  // A 4-ary min-heap on (time, seq): half the depth of a binary heap, and a node's children share
  // a cache line or two, which matters with millions of pending events.
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace plansim
