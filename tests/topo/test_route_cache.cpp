#include <catch2/catch.hpp>

#include <vector>

#include "sim/topo/route_cache.hpp"

using namespace plansim;

TEST_CASE("route cache: finds what was inserted, misses the rest, spans survive growth", "[topo]") {
  detail::RouteCache cache;
  // 20,000 pairs (many growths and storage blocks); pair k's path is k % 7 links numbered k, k+1, ...
  auto key = [](uint32_t k) { return (uint64_t{k * 7919U % 100003U} << 32) | (k + 1); };
  std::vector<std::span<const LinkId>> returned;
  for (uint32_t k = 0; k < 20000; ++k) {
    std::vector<LinkId> path;
    for (uint32_t j = 0; j < k % 7; ++j) path.push_back(LinkId(k + j));
    returned.push_back(cache.insert(key(k), path));
    REQUIRE(returned.back().size() == k % 7);
  }
  CHECK(cache.size() == 20000);
  for (uint32_t k = 0; k < 20000; ++k) {
    const auto* hit = cache.find(key(k));
    REQUIRE(hit != nullptr);
    REQUIRE(hit->size() == k % 7);
    CHECK(hit->data() == returned[k].data());  // the first span still points at the stored path
    for (uint32_t j = 0; j < k % 7; ++j) REQUIRE(returned[k][j] == LinkId(k + j));
  }
  CHECK(cache.find((uint64_t{5} << 32) | 5) == nullptr);  // never inserted
  CHECK(cache.find(key(20000)) == nullptr);
}
