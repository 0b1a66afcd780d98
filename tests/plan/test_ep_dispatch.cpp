#include <catch2/catch.hpp>

#include <map>

#include "tests/support/small_scenario.hpp"

#include "sim/plan/ep_dispatch.hpp"
#include "sim/plan/plan_compiler.hpp"

using namespace plansim;

namespace {
// Rank 0's first `n` all-to-alls, in order: (group size, bytes).
std::vector<std::pair<size_t, double>> first_all_to_alls(const CompiledPlan& p, size_t n) {
  std::vector<std::pair<size_t, double>> out;
  for (const auto& o : p.programs[0].ops)
    if (o.kind == OpKind::collective && o.comm == CommOp::all_to_all && out.size() < n)
      out.emplace_back(p.groups[o.group].ranks.size(), o.bytes);
  return out;
}
}  // namespace

TEST_CASE("ep dispatch: servers a token's experts land on, closed forms", "[plan][moe]") {
  // One server: always that one. top_k 1: exactly one server, whatever the split.
  CHECK(expected_servers_hit(128, 8, 1) == 1);
  CHECK(expected_servers_hit(128, 1, 4) == Approx(1));
  // 4 experts on 2 servers (2 each), top 2: both on one server in C(2,2)/C(4,2) = 1/6 of the draws per
  // server, so 2·(1 − 1/6) = 5/3 servers on average.
  CHECK(expected_servers_hit(4, 2, 2) == Approx(5.0 / 3.0));
  // k = E: every server.
  CHECK(expected_servers_hit(16, 16, 4) == Approx(4));
  // Qwen3-30B-A3B on 2 servers (128 experts, top 8): 2·(1 − C(64,8)/C(128,8)).
  double ratio = 1;
  for (int i = 0; i < 8; ++i) ratio *= (64.0 - i) / (128.0 - i);
  CHECK(expected_servers_hit(128, 8, 2) == Approx(2 * (1 - ratio)));
}

TEST_CASE("ep dispatch: the EP group split by server", "[plan][moe]") {
  std::vector<int> members;
  for (int r = 0; r < 16; ++r) members.push_back(r);
  const EpSplit s = split_ep_group(members, 10, 8);
  CHECK(s.within == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(s.across == std::vector<int>{2, 10});
  CHECK(split_ep_group(members, 3, 16).across.empty());  // one server: flat
  CHECK(split_ep_group({0, 1, 2, 8}, 0, 8).across.empty());  // 3 + 1 members: unequal, flat
  // TP 2 inside: EP members every other rank.
  const EpSplit t = split_ep_group({0, 2, 4, 6, 8, 10, 12, 14}, 6, 8);
  CHECK(t.within == std::vector<int>{0, 2, 4, 6});
  CHECK(t.across == std::vector<int>{6, 14});
}

TEST_CASE("compiler: the hierarchical dispatcher sends each token once per server, then its k copies inside",
          "[plan][moe]") {
  Scenario s = testing::small_scenario(1, 1, 16, 2);
  s.model.moe = MoeSpec{128, 8, 768, 1};
  s.parallel.ep = 16;
  s.parallel.domain_gpus = 8;
  const double tokens = 1024, h = 1024, e = 2;
  auto a2a = [](const CompiledPlan& p) { return first_all_to_alls(p, 4); };  // the first MoE block
  const auto flat = a2a(compile_plan(s));
  REQUIRE(flat.size() == 4);
  CHECK(flat[0] == std::pair<size_t, double>{16, tokens * 8 * h * e});
  s.parallel.ep_dispatcher = ParallelSpec::EpDispatcher::hierarchical;
  const auto hier = a2a(compile_plan(s));
  REQUIRE(hier.size() == 4);
  const double across = tokens * h * e * expected_servers_hit(128, 8, 2);
  // Dispatch: across the 2 servers, then inside the server (8 ranks); the combine in reverse.
  CHECK(hier[0].first == 2);
  CHECK(hier[0].second == Approx(across));
  CHECK(hier[1] == std::pair<size_t, double>{8, tokens * 8 * h * e});
  CHECK(hier[2] == std::pair<size_t, double>{8, tokens * 8 * h * e});
  CHECK(hier[3].first == 2);
  // On one server the hierarchical dispatcher is the flat all-to-all.
  s.parallel.domain_gpus = 16;
  CHECK(a2a(compile_plan(s)) == flat);
}

TEST_CASE("compiler: with TP and sequence parallelism each TP rank dispatches only its sequence shard",
          "[plan][moe]") {
  // 16 ranks: TP2 x DP8, EP8. Megatron-Core's MoE layer runs on the SP-sharded hidden states, so a TP
  // rank sends tokens/tp of them (token_dispatcher.py: num_local_tokens = S/TP*B); without SP it holds
  // and sends all of them.
  Scenario s = testing::small_scenario(2, 1, 8, 2);
  s.model.moe = MoeSpec{64, 4, 768, 1};
  s.parallel.ep = 8;
  s.parallel.domain_gpus = 16;
  const double tokens = 1024, h = 1024, e = 2;
  auto first_a2a = [](const CompiledPlan& p) { return first_all_to_alls(p, 1).at(0).second; };
  s.parallel.sequence_parallel = true;
  CHECK(first_a2a(compile_plan(s)) == Approx(tokens / 2 * 4 * h * e));
  s.parallel.sequence_parallel = false;
  CHECK(first_a2a(compile_plan(s)) == Approx(tokens * 4 * h * e));
}
