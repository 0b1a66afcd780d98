#pragma once
// Data-parallel gradient buckets of one rank's program (plan compiler): gradients are added as
// backward produces them and reduced in buckets of `bucket_bytes` (Megatron / DDP), each bucket's
// collective depending on the last producer of its gradients. Without overlap every bucket waits
// for the end of the backward pass instead. With ZeRO-3 every layer is its own bucket.
//
// Canonical order (DualPipe's mirrored layout): stage s and its mirror p−1−s reduce the same two
// pieces together but finish them in different orders, and a collective needs the same sequence on
// every member; so items are only collected during backward and bucketed at finish(), sorted by a
// key both mirrors share, each bucket depending on this rank's last producer among its items.
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

namespace plansim {

class GradBuckets {
 public:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  // Issues one bucket's reduction of `bytes` after op `after` (kNone: no dependency); returns its op.
  using Reduce = std::function<uint32_t(double bytes, uint32_t after)>;
  using SortKey = std::pair<int, int>;

  GradBuckets(double bucket_bytes, bool overlap, bool every_layer, bool canonical_order)
      : bucket_bytes_(bucket_bytes), overlap_(overlap), every_layer_(every_layer), canonical_(canonical_order) {}

  // `bytes` of gradients are ready after op `producer`; `key` orders them in canonical mode.
  void add(double bytes, uint32_t producer, SortKey key, const Reduce& reduce);
  // End of the backward pass (`last_compute`: its last op): buckets what is left and, without
  // overlap, issues every bucket. Returns the last reduction op (kNone if none).
  uint32_t finish(uint32_t last_compute, const Reduce& reduce);
  // Op indices moved (DualPipe's F&B interleaving): applies `remap` to every index held.
  void remap(const std::function<void(uint32_t&)>& remap);

 private:
  void flush(const Reduce& reduce);
  struct Item {
    double bytes;
    uint32_t producer;
    SortKey key;
  };
  double bucket_bytes_;
  bool overlap_, every_layer_, canonical_;
  double open_bytes_ = 0;          // the bucket being filled
  uint32_t open_producer_ = kNone;
  uint32_t last_ = kNone;          // last reduction issued
  std::vector<double> deferred_;   // without overlap: bucket sizes, issued at finish()
  std::vector<Item> items_;        // canonical order: collected until finish()
};

}  // namespace plansim
