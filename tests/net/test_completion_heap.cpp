// CompletionHeap: an indexed 4-ary heap; after every insert, key change and removal its top is the
// least (time, id) of what it holds, as an ordered set of the same items says, and popping it empty
// gives the items in key order.
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "sim/net/completion_heap.hpp"

using namespace plansim;

namespace {
using Key = std::tuple<int64_t, uint32_t, uint32_t>;  // (time, id, slot)
}

TEST_CASE("completion heap: top and pop order match an ordered set under random updates", "[net][heap]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    CompletionHeap heap;
    std::set<Key> ref;
    std::vector<Key> of_slot(64, Key{-1, 0, 0});  // the slot's item in `ref`, time -1 when absent
    uint32_t next_id = 0;
    for (int step = 0; step < 2000; ++step) {
      const auto slot = static_cast<uint32_t>(rng() % of_slot.size());
      const bool present = std::get<0>(of_slot[slot]) >= 0;
      if (present && rng() % 3 == 0) {
        heap.erase(slot);
        ref.erase(of_slot[slot]);
        of_slot[slot] = Key{-1, 0, 0};
      } else {
        // Few distinct times, so that ties (broken by id) are common; a moved slot keeps its id.
        const auto time = static_cast<int64_t>(rng() % 50);
        const uint32_t id = present ? std::get<1>(of_slot[slot]) : next_id++;
        if (present) ref.erase(of_slot[slot]);
        heap.set(slot, time, id);
        of_slot[slot] = Key{time, id, slot};
        ref.insert(of_slot[slot]);
      }
      REQUIRE(heap.size() == ref.size());
      for (uint32_t s = 0; s < of_slot.size(); ++s) REQUIRE(heap.contains(s) == (std::get<0>(of_slot[s]) >= 0));
      if (!ref.empty()) {
        REQUIRE(heap.top_time() == std::get<0>(*ref.begin()));
        REQUIRE(heap.top_slot() == std::get<2>(*ref.begin()));
      }
    }
    while (!ref.empty()) {
      REQUIRE(heap.top_slot() == std::get<2>(*ref.begin()));
      REQUIRE(heap.top_time() == std::get<0>(*ref.begin()));
      heap.erase(heap.top_slot());
      ref.erase(ref.begin());
    }
    REQUIRE(heap.empty());
  }
}
