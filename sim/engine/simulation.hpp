#pragma once
// The discrete-event core: a clock and a queue of actions ordered by (time, sequence), so that
// events at the same time run in the order they were scheduled (deterministic, never by pointer).
// Cancellation is lazy: a cancelled event stays queued and is skipped when popped.
// Events scheduled for the current time (zero delay: a finished flow's callback, a re-solve) skip the
// heap: they go to a FIFO that runs after the heap's events at that time, which is exactly (time,
// sequence) order, because every heap event at time t was scheduled before the clock reached t.
// Future events at one time share a bucket: consecutive at() calls for the same time (what ranks
// in lockstep do: a 16,384-GPU plan schedules 5.5 M events at 30 k distinct times) append to the
// bucket last used, so the heap orders buckets, not events. A bucket is only appended to while it is
// the last one used, so buckets of equal time hold disjoint, ordered ranges of sequence numbers,
// and ordering buckets by (time, first sequence) and draining each in order is (time, sequence).
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
  // A heap entry: one bucket, 16 bytes, so a node's four children share one cache line. `key` holds
  // the bucket's first sequence number in its high 40 bits (a trillion events) and the bucket id in
  // the low 24; sequence numbers are unique, so ordering by key is ordering by first sequence.
  // Event tags (in buckets and the FIFO) have the same layout with the event's slot in the low bits
  // (16 M events pending at once).
  static constexpr int kSlotBits = 24;
  static constexpr uint64_t kLowMask = (uint64_t{1} << kSlotBits) - 1;
  struct Entry {
    Time time;
    uint64_t key;
    bool operator>(const Entry& o) const { return time != o.time ? time > o.time : key > o.key; }
  };
  struct Bucket {  // events in scheduling order: `first`, then `rest` (most buckets hold one event)
    Time time;
    uint64_t first = 0;
    size_t size = 0;
    size_t head = 0;             // next to run
    std::vector<uint64_t> rest;
  };
  struct Slot {
    Action action;
    uint64_t seq = 0;  // the event occupying this slot; 0 when free
  };
  static constexpr uint32_t kNoBucket = ~0U;
  uint32_t new_bucket(Time t);
  void release_bucket(uint32_t b);
  bool step(Time limit);
  void run_tag(Time t, uint64_t tag);
  void heap_push(const Entry& e);
  void heap_pop();

  Time now_ = Time::zero();
  uint64_t next_seq_ = 1;
  uint64_t processed_ = 0;
  size_t live_ = 0;
  // A 4-ary min-heap of buckets on (time, first seq): half the depth of a binary heap, and a node's
  // children share a cache line or two.
  std::vector<Entry> heap_;
  std::vector<Bucket> buckets_;        // by id, reused through free_buckets_
  std::vector<uint32_t> free_buckets_;
  uint32_t last_ = kNoBucket;          // the bucket last appended to (still queued), if any
  uint32_t current_ = kNoBucket;       // the bucket being drained (popped from the heap), if any
  std::vector<uint64_t> fifo_;         // events at time now_, in scheduling order, from fifo_head_ on
  size_t fifo_head_ = 0;
  std::vector<Slot> slots_;
  std::vector<uint32_t> free_slots_;
};

}  // namespace plansim
