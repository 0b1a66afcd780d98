// plansim search's exact pruning by the lower bound (same top plans as the exhaustive search), its
// shards (merged: the one-process top plans) and resuming from a results file.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "sim/advise/results_file.hpp"
#include "sim/advise/search.hpp"
#include "sim/core/error.hpp"

using namespace plansim;
using namespace plansim::advise;

namespace {
const std::string kGood = std::string(PLANSIM_SOURCE_DIR) + "/scenarios/antipatterns/good.yaml";

SearchOptions base_options() {
  SearchOptions o;
  o.gpus = 8;
  o.jobs = 2;
  o.top = 5;
  o.only = {{"parallel.zero", {"1", "3"}}};
  return o;
}

void check_same_top(const SearchResult& a, const SearchResult& b, size_t k) {
  REQUIRE(a.ranked.size() >= k);
  REQUIRE(b.ranked.size() >= k);
  for (size_t i = 0; i < k; ++i) {
    INFO("rank " << i + 1);
    CHECK(a.ranked[i].index == b.ranked[i].index);
    CHECK(a.ranked[i].label == b.ranked[i].label);
    CHECK(a.ranked[i].sets == b.ranked[i].sets);
    CHECK(a.ranked[i].metrics.tokens_per_s == b.ranked[i].metrics.tokens_per_s);
  }
  CHECK(search_text(a, static_cast<int>(k)).substr(search_text(a, static_cast<int>(k)).find('\n')) ==
        search_text(b, static_cast<int>(k)).substr(search_text(b, static_cast<int>(k)).find('\n')));
}

std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("plansim-search-prune-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto p = dir / name;
  std::filesystem::remove(p);
  return p;
}
}  // namespace

TEST_CASE("search: pruning by the lower bound keeps the exhaustive top plans", "[advise][prune]") {
  SearchOptions o = base_options();
  o.prune = false;
  const SearchResult all = run_search(kGood, o);
  for (int jobs : {1, 2}) {
    o.prune = true;
    o.jobs = jobs;
    const SearchResult pruned = run_search(kGood, o);
    INFO("jobs " << jobs << ": " << pruned.simulated << " simulated, " << pruned.pruned_bound << " pruned by the bound");
    CHECK(pruned.pruned_bound > 0);
    CHECK(pruned.simulated + pruned.pruned_bound == all.simulated);
    CHECK(pruned.enumerated == all.enumerated);
    CHECK(pruned.pruned == all.pruned);
    check_same_top(pruned, all, 5);
    // Every plan's bound is below its simulated time, and every plan left out could not reach #5.
    for (const auto& p : pruned.ranked) CHECK(p.bound_s <= p.metrics.iteration_s);
    CHECK(all.ranked[4].metrics.tokens_per_s >= 0);
  }
  CHECK(all.pruned_bound == 0);
}

TEST_CASE("search: shards merged give the one-process top plans; a rerun resumes", "[advise][prune]") {
  for (bool prune : {false, true}) {
    SearchOptions o = base_options();
    o.prune = prune;
    const SearchResult one = run_search(kGood, o);
    std::vector<ShardFile> files;
    size_t simulated = 0;
    for (int k = 0; k < 3; ++k) {
      SearchOptions s = o;
      s.jobs = 1;
      s.shard = advise::Shard{k, 3};
      s.out = scratch(fmt::format("shard{}-{}.jsonl", k, prune)).string();
      const SearchResult part = run_search(kGood, s);
      simulated += part.simulated;
      files.push_back(read_shard_file(s.out));
      CHECK(files.back().points.size() == part.simulated);
    }
    std::reverse(files.begin(), files.end());  // any order
    int top = 0;
    const SearchResult merged = merge_search(files, top);
    CHECK(top == 5);
    CHECK(merged.simulated == simulated);
    CHECK(merged.enumerated == one.enumerated);
    check_same_top(merged, one, 5);
    if (!prune) CHECK(search_text(merged, 5) == search_text(one, 5));  // byte for byte, counts included
  }
  // Resume: the finished file is read back, nothing simulated again (no line added but the done line).
  SearchOptions s = base_options();
  s.out = scratch("resume.jsonl").string();
  const SearchResult first = run_search(kGood, s);
  auto lines = [&] {
    std::ifstream in(s.out);
    return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
  };
  const auto before = lines();
  const SearchResult again = run_search(kGood, s);
  CHECK(lines() == before);
  CHECK(search_text(again, 5) == search_text(first, 5));
  // Another run's file is refused.
  SearchOptions other = s;
  other.top = 3;
  CHECK_THROWS_AS(run_search(kGood, other), ConfigError);
}
