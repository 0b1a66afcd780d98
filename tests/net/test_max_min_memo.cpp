// MaxMinMemo: answers bit-identical to the solver's, on hits and misses, with colliding hashes
// (every instance in one bucket) and with a budget small enough to force clears.
#include <catch2/catch.hpp>

#include <limits>
#include <random>
#include <vector>

#include "sim/net/max_min_memo.hpp"

using namespace plansim;

namespace {

struct Instance {
  std::vector<double> capacity, mult, cap, weight;
  std::vector<uint32_t> begin{0}, link;
  [[nodiscard]] MaxMinInstance view() const { return {capacity, begin, link, mult, cap, weight}; }
};

Instance random_instance(std::mt19937_64& rng) {
  Instance in;
  const size_t nl = 1 + rng() % 8, nf = 1 + rng() % 10;
  for (size_t l = 0; l < nl; ++l) in.capacity.push_back(static_cast<double>(1 + rng() % 4) * 10.0);
  for (size_t f = 0; f < nf; ++f) {
    const size_t k = 1 + rng() % 3;
    for (size_t e = 0; e < k; ++e) {
      in.link.push_back(static_cast<uint32_t>(rng() % nl));
      in.mult.push_back(static_cast<double>(1 + rng() % 2));
    }
    in.begin.push_back(static_cast<uint32_t>(in.link.size()));
    in.cap.push_back(rng() % 4 == 0 ? static_cast<double>(1 + rng() % 20) : std::numeric_limits<double>::infinity());
    in.weight.push_back(static_cast<double>(1 + rng() % 3));
  }
  return in;
}

}  // namespace

TEST_CASE("max-min memo: hits and misses answer exactly what the solver does", "[net][maxmin][memo]") {
  // mask 0: every instance hashes alike, so each lookup compares against every stored one; budget
  // 200: the memo clears itself many times over.
  for (const auto& [mask, budget] : {std::pair<uint64_t, size_t>{~uint64_t{0}, size_t{1} << 20}, {0, 1u << 20}, {~uint64_t{0}, 200}}) {
    std::mt19937_64 rng(7);
    std::vector<Instance> pool;
    for (int i = 0; i < 40; ++i) pool.push_back(random_instance(rng));
    MaxMinSolver plain, memo_solver;
    MaxMinMemo memo(mask, budget);
    for (int round = 0; round < 600; ++round) {
      const Instance& in = pool[rng() % pool.size()];  // instances repeat: hits
      const size_t nf = in.cap.size();
      std::vector<double> want(nf), got(nf, -1.0);
      std::vector<uint32_t> want_b(nf), got_b(nf, 12345);
      plain.solve(in.view(), want, want_b);
      memo.solve(memo_solver, in.view(), got, got_b);
      REQUIRE(got == want);
      REQUIRE(got_b == want_b);
    }
    CHECK(memo.hits() > 0);
    CHECK(memo.misses() >= pool.size());
    CHECK(memo.hits() + memo.misses() == 600);
  }
}

TEST_CASE("max-min memo: an instance differing in one number is not a hit", "[net][maxmin][memo]") {
  Instance a;
  a.capacity = {10.0, 10.0};
  a.link = {0, 0, 1};
  a.mult = {1.0, 1.0, 1.0};
  a.begin = {0, 1, 3};
  a.cap = {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  a.weight = {1.0, 1.0};
  Instance b = a;
  b.capacity[1] = 4.0;  // flow 1 now bottlenecked on link 1 at 4, flow 0 gets 6
  MaxMinSolver solver;
  MaxMinMemo memo(0);  // one bucket for all: only the comparison tells them apart
  std::vector<double> r(2);
  std::vector<uint32_t> bn(2);
  memo.solve(solver, a.view(), r, bn);
  CHECK(r == std::vector<double>{5.0, 5.0});
  memo.solve(solver, b.view(), r, bn);
  CHECK(r == std::vector<double>{6.0, 4.0});
  CHECK(bn == std::vector<uint32_t>{0, 1});
  memo.solve(solver, a.view(), r, bn);
  CHECK(r == std::vector<double>{5.0, 5.0});
  CHECK(memo.hits() == 1);
  CHECK(memo.misses() == 2);
}
