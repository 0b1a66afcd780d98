#include "sim/net/max_min_memo.hpp"

#include <algorithm>
#include <cstring>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {

uint64_t mix(uint64_t h, uint64_t v) {  // splitmix64-style combine
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ULL;
  return h;
}
uint64_t bits(double d) {
  uint64_t u = 0;
  std::memcpy(&u, &d, sizeof u);
  return u;
}
template <class T>
bool same_bits(const std::vector<T>& a, std::span<const T> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

}  // namespace

uint64_t MaxMinMemo::hash(const MaxMinInstance& in) const {
  // Four independent lanes, so that the multiplies overlap instead of forming one dependency chain
  // (a lookup hashes ~1,000 incidences), each array four values a round so that the lanes stay in
  // registers; collisions only cost a comparison.
  const size_t ne = in.num_flows() == 0 ? 0 : in.flow_begin[in.num_flows()];
  constexpr uint64_t k = 0x9e3779b97f4a7c15ULL;
  uint64_t h0 = in.link_capacity.size(), h1 = in.num_flows(), h2 = ne, h3 = in.flow_weight.size();
  auto feed = [&](size_t count, auto&& value) {
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
      h0 = (h0 ^ value(i)) * k;
      h1 = (h1 ^ value(i + 1)) * k;
      h2 = (h2 ^ value(i + 2)) * k;
      h3 = (h3 ^ value(i + 3)) * k;
    }
    for (; i < count; ++i) h0 = (h0 ^ value(i)) * k;
  };
  feed(in.link_capacity.size(), [&](size_t i) { return bits(in.link_capacity[i]); });
  feed(in.flow_begin.size(), [&](size_t i) { return uint64_t{in.flow_begin[i]}; });
  feed(ne, [&](size_t i) { return (uint64_t{in.entry_link[i]} << 32) ^ bits(in.entry_mult[i]); });
  feed(in.flow_cap.size(), [&](size_t i) { return bits(in.flow_cap[i]); });
  feed(in.flow_weight.size(), [&](size_t i) { return bits(in.flow_weight[i]); });
  uint64_t h = 0;
  for (uint64_t v : {h0, h1, h2, h3}) h = mix(h, v);
  return h & mask_;
}

bool MaxMinMemo::same(const Stored& s, const MaxMinInstance& in) {
  const size_t ne = in.num_flows() == 0 ? 0 : in.flow_begin[in.num_flows()];
  return same_bits(s.begin, in.flow_begin) && same_bits(s.capacity, in.link_capacity) &&
         same_bits(s.link, in.entry_link.first(ne)) && same_bits(s.mult, in.entry_mult.first(ne)) &&
         same_bits(s.cap, in.flow_cap) && same_bits(s.weight, in.flow_weight);
}

void MaxMinMemo::solve(MaxMinSolver& solver, const MaxMinInstance& in, std::span<double> rates,
                       std::span<uint32_t> bottleneck) {
  const size_t nf = in.num_flows();
  PLANSIM_ASSERT(rates.size() == nf && bottleneck.size() == nf, "max-min memo: result spans have the wrong size");
  const uint64_t h = hash(in);
  auto& bucket = index_[h];
  for (const uint32_t i : bucket) {
    const Stored& s = stored_[i];
    if (!same(s, in)) continue;
    ++hits_;
    std::copy(s.rates.begin(), s.rates.end(), rates.begin());
    std::copy(s.bottleneck.begin(), s.bottleneck.end(), bottleneck.begin());
    return;
  }
  ++misses_;
  solver.solve(in, rates, bottleneck);
  const size_t ne = nf == 0 ? 0 : in.flow_begin[nf];
  const size_t size = in.link_capacity.size() + in.flow_begin.size() + 2 * ne + 4 * nf;
  if (held_ + size > budget_) {  // start over: bounded memory, still exact
    index_.clear();
    stored_.clear();
    held_ = 0;
  }
  if (size > budget_) return;
  held_ += size;
  Stored& s = stored_.emplace_back();
  s.capacity.assign(in.link_capacity.begin(), in.link_capacity.end());
  s.begin.assign(in.flow_begin.begin(), in.flow_begin.end());
  s.link.assign(in.entry_link.begin(), in.entry_link.begin() + static_cast<std::ptrdiff_t>(ne));
  s.mult.assign(in.entry_mult.begin(), in.entry_mult.begin() + static_cast<std::ptrdiff_t>(ne));
  s.cap.assign(in.flow_cap.begin(), in.flow_cap.end());
  s.weight.assign(in.flow_weight.begin(), in.flow_weight.end());
  s.rates.assign(rates.begin(), rates.end());
  s.bottleneck.assign(bottleneck.begin(), bottleneck.end());
  index_[h].push_back(static_cast<uint32_t>(stored_.size() - 1));  // `bucket` may be gone after a clear
}

}  // namespace plansim
