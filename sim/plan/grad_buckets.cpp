#include "sim/plan/grad_buckets.hpp"

#include <algorithm>

namespace plansim {

void GradBuckets::add(double bytes, uint32_t producer, SortKey key, const Reduce& reduce) {
  if (canonical_) {
    items_.push_back({bytes, producer, key});
    return;
  }
  open_bytes_ += bytes;
  open_producer_ = producer;
  if (every_layer_ || open_bytes_ >= bucket_bytes_) flush(reduce);
}

void GradBuckets::flush(const Reduce& reduce) {
  if (open_bytes_ <= 0) return;
  if (overlap_) last_ = reduce(open_bytes_, open_producer_);
  else deferred_.push_back(open_bytes_);
  open_bytes_ = 0;
}

uint32_t GradBuckets::finish(uint32_t last_compute, const Reduce& reduce) {
  if (canonical_) {
    std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.key < b.key; });
    for (const Item& it : items_) {
      open_bytes_ += it.bytes;
      open_producer_ = open_producer_ == kNone ? it.producer : std::max(open_producer_, it.producer);
      if (open_bytes_ >= bucket_bytes_) {
        flush(reduce);
        open_producer_ = kNone;
      }
    }
    items_.clear();
  }
  flush(reduce);
  if (!overlap_)
    for (double b : deferred_) last_ = reduce(b, last_compute);
  deferred_.clear();
  return last_;
}

void GradBuckets::remap(const std::function<void(uint32_t&)>& remap) {
  remap(open_producer_);
  remap(last_);
  for (Item& it : items_) remap(it.producer);
}

}  // namespace plansim
