#pragma once
// Memo of max-min solves: an instance identical to one solved before gets that solve's answer.
//
// MaxMinSolver::solve is a pure, deterministic function of its instance (capacities, CSR incidences,
// multiplicities, caps, weights), so an instance equal bit for bit to a stored one has bit for bit
// the stored rates and bottlenecks. The flow network's re-solves repeat: a plan runs the same
// collective calls in the same surroundings again and again (the 9,216-GPU MoE benchmark's EP
// all-to-alls give 63 k solves of which all but 153 repeat an earlier instance), and in local
// indices (links numbered in the order the re-solve reaches them) a repeat is the same instance.
// A lookup hashes the instance and compares it whole with the stored candidates (a hash collision
// costs a comparison, never a wrong answer), so a hit costs O(size) instead of a solve's O(E log E)
// with its scattered heap updates. Memory is bounded: the memo forgets everything when it holds
// more than its budget of stored numbers (2 M by default, ~12 MB; the MoE run stores 0.9 M) and
// starts over (what it returns is exact either way).
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/net/max_min.hpp"

namespace plansim {

class MaxMinMemo {
 public:
  // `hash_mask` is and-ed into every hash (tests pass 0 to make every instance collide); `budget`
  // is the most numbers (doubles and indices) kept before the memo is cleared.
  explicit MaxMinMemo(uint64_t hash_mask = ~uint64_t{0}, size_t budget = size_t{1} << 21)
      : mask_(hash_mask), budget_(budget) {}
  // What solver.solve(in, rates, bottleneck) writes, from the memo when `in` was solved before
  // (bottleneck must not be empty: the memo stores both).
  void solve(MaxMinSolver& solver, const MaxMinInstance& in, std::span<double> rates, std::span<uint32_t> bottleneck);
  [[nodiscard]] uint64_t hits() const { return hits_; }
  [[nodiscard]] uint64_t misses() const { return misses_; }

 private:
  struct Stored {
    std::vector<double> capacity, mult, cap, weight, rates;
    std::vector<uint32_t> begin, link, bottleneck;
  };
  [[nodiscard]] uint64_t hash(const MaxMinInstance& in) const;
  [[nodiscard]] static bool same(const Stored& s, const MaxMinInstance& in);

  uint64_t mask_;
  size_t budget_;
  size_t held_ = 0;
  std::unordered_map<uint64_t, std::vector<uint32_t>> index_;  // hash -> stored instances
  std::vector<Stored> stored_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
};

}  // namespace plansim
