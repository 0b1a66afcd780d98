#include "sim/engine/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/assert.hpp"
#include "sim/core/free_slots.hpp"

namespace plansim {

EventId Simulation::at(Time t, Action a) {
  PLANSIM_ASSERT(t >= now_, fmt::format("event scheduled in the past ({} < {})", to_string(t), to_string(now_)));
  const uint32_t slot = take_free_slot(free_slots_, [this] {
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  });
  PLANSIM_ASSERT(slot <= kLowMask && next_seq_ < (uint64_t{1} << (64 - kSlotBits)),
                 "more events than the event queue can number");
  const uint64_t seq = next_seq_++;
  slots_[slot].action = std::move(a);
  slots_[slot].seq = seq;
  const uint64_t tag = seq << kSlotBits | slot;
  if (t == now_) {
    fifo_.push_back(tag);
  } else {
    if (last_ == kNoBucket || buckets_[last_].time != t) {
      last_ = new_bucket(t);
      heap_push(Entry{t, seq << kSlotBits | last_});
    }
    Bucket& b = buckets_[last_];
    if (b.size++ == 0) b.first = tag;
    else b.rest.push_back(tag);
  }
  ++live_;
  return EventId{seq, slot};
}

uint32_t Simulation::new_bucket(Time t) {
  const uint32_t b = take_free_slot(free_buckets_, [this] {
    PLANSIM_ASSERT(buckets_.size() <= kLowMask, "more pending event times than the event queue can number");
    buckets_.emplace_back();
    return static_cast<uint32_t>(buckets_.size() - 1);
  });
  buckets_[b].time = t;
  return b;
}

void Simulation::release_bucket(uint32_t b) {
  Bucket& bucket = buckets_[b];
  bucket.head = 0;
  bucket.size = 0;
  if (bucket.rest.capacity() > (size_t{1} << 16)) std::vector<uint64_t>().swap(bucket.rest);  // a rare huge one
  else bucket.rest.clear();
  free_buckets_.push_back(b);
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
    if (current_ != kNoBucket && buckets_[current_].head == buckets_[current_].size) {
      release_bucket(current_);
      current_ = kNoBucket;
    }
    // The timed events due now (the bucket being drained, or the heap's top) were scheduled before
    // the FIFO's (see the header): they go first.
    const bool fifo_empty = fifo_head_ == fifo_.size();
    const bool timed = current_ != kNoBucket ? fifo_empty || buckets_[current_].time == now_
                                             : !heap_.empty() && (fifo_empty || heap_.front().time == now_);
    if (!timed && fifo_empty) return false;
    uint64_t tag;
    Time t;
    if (timed) {
      if (current_ == kNoBucket) {
        if (heap_.front().time > limit) return false;
        current_ = static_cast<uint32_t>(heap_.front().key & kLowMask);
        heap_pop();
        if (last_ == current_) last_ = kNoBucket;  // drained from now on: later events at its time use the FIFO
      }
      Bucket& b = buckets_[current_];
      if (b.time > limit) return false;
      t = b.time;
      tag = b.head == 0 ? b.first : b.rest[b.head - 1];
      ++b.head;
    } else {
      t = now_;
      tag = fifo_[fifo_head_];
      if (++fifo_head_ == fifo_.size()) {
        fifo_.clear();
        fifo_head_ = 0;
      }
    }
    if (slots_[tag & kLowMask].seq != tag >> kSlotBits) continue;  // cancelled (slot freed, maybe reused)
    run_tag(t, tag);
    return true;
  }
}

void Simulation::run_tag(Time t, uint64_t tag) {
  const auto s = static_cast<uint32_t>(tag & kLowMask);
  Slot& slot = slots_[s];
  now_ = t;
  Action action = std::move(slot.action);
  slot.action = nullptr;
  slot.seq = 0;
  free_slots_.push_back(s);
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
