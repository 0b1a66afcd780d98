#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/advise/stage_balance.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/small_scenario.hpp"

using namespace plansim;
using namespace plansim::advise;

TEST_CASE("stage balance: min-max contiguous partition with the embedding and logits on the end pieces", "[advise]") {
  LayerWork w;
  w.layer_s.assign(10, 1.0);
  // Logits worth 2 layers: 12 units over 4 pieces = 3 each, only as [3, 3, 3, 1 + logits].
  w.logits_s = 2;
  CHECK(balanced_partition(w, 4) == std::vector<int>{3, 3, 3, 1});
  CHECK(piece_work(w, {3, 3, 3, 1}) == std::vector<double>{3, 3, 3, 3});
  // Embedding and logits one layer each: [1 + 2, 3, 3, 2 + 1].
  w.embedding_s = 1;
  w.logits_s = 1;
  CHECK(balanced_partition(w, 4) == std::vector<int>{2, 3, 3, 2});
  // No extras, 10 over 4: the heaviest piece is 3 at best; the most even such cut has two 3s and two 2s.
  w.embedding_s = 0;
  w.logits_s = 0;
  const std::vector<int> even = balanced_partition(w, 4);
  CHECK(*std::max_element(even.begin(), even.end()) == 3);
  CHECK(std::count(even.begin(), even.end(), 3) == 2);
  // Every piece keeps a layer even when the logits outweigh everything.
  w.logits_s = 100;
  CHECK(balanced_partition(w, 4) == std::vector<int>{3, 3, 3, 1});
  // Uneven layers (MoE every other layer twice as costly): cut by time, not count. Layers 1, 2, 1, 2,
  // ... (12 layers, 18 units) into 3 pieces of 6.
  w = LayerWork{};
  for (int l = 0; l < 12; ++l) w.layer_s.push_back(l % 2 == 0 ? 1.0 : 2.0);
  CHECK(balanced_partition(w, 3) == std::vector<int>{4, 4, 4});
}

TEST_CASE("stage balance: per-layer work from the compute model, logits scale with the vocabulary", "[advise]") {
  Scenario s = testing::small_scenario(1, 2, 1, 4);
  const GpuSpec gpu = testing::test_a100();
  const LayerWork a = estimate_layer_work(s, gpu);
  REQUIRE(a.layer_s.size() == 8);
  for (double t : a.layer_s) CHECK(t == Approx(a.layer_s[0]));
  CHECK(a.embedding_s > 0);
  s.model.vocab *= 4;
  const LayerWork b = estimate_layer_work(s, gpu);
  CHECK(b.logits_s > 3 * a.logits_s);
  CHECK(b.layer_s[0] == Approx(a.layer_s[0]));
  s.training.recompute = Recompute::full;
  CHECK(estimate_layer_work(s, gpu).layer_s[0] > a.layer_s[0]);
}
