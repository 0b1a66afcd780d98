// Folding DP replicas in blocks keeps expert groups groups only for some blocks
// (plan/fold_equivariance.hpp): with the experts folded, a shift by tp·cp·block stage indices must be a
// multiple of the EP run (ep·expert_tp), unless the run is the whole stage; the hierarchical
// dispatcher's per-domain split must move domains onto domains.
#include <catch2/catch.hpp>

#include "sim/plan/fold_equivariance.hpp"

using namespace plansim;

namespace {
Scenario moe(int tp, int dp, int ep, int expert_tp) {
  Scenario s;
  s.model.moe = MoeSpec{.experts = 64, .top_k = 2, .expert_ffn_hidden = 1024};
  s.parallel.tp = tp;
  s.parallel.dp = dp;
  s.parallel.pp = 2;
  s.parallel.ep = ep;
  s.parallel.expert_tp = expert_tp;
  return s;
}
}  // namespace

TEST_CASE("fold equivariance: folded experts fold only in blocks of whole EP runs", "[plan][symmetry]") {
  // TP 2 x DP 16 per stage; EP 8 over TP x DP: runs of 8 ranks = 4 replicas.
  const Scenario s = moe(2, 16, 8, 1);
  CHECK_FALSE(expert_groups_break_fold(s, Dim::dp, 1).empty());
  CHECK(expert_groups_break_fold(s, Dim::dp, 1).find("is not rank") != std::string::npos);
  CHECK_FALSE(expert_groups_break_fold(s, Dim::dp, 2).empty());
  CHECK(expert_groups_break_fold(s, Dim::dp, 4).empty());
  CHECK(expert_groups_break_fold(s, Dim::dp, 8).empty());
  // EP over the whole stage: every shift maps it onto itself.
  CHECK(expert_groups_break_fold(moe(2, 16, 32, 1), Dim::dp, 1).empty());
  // Experts split as the dense layers (EP inside DP): EP varies whole coordinates.
  CHECK(expert_groups_break_fold(moe(2, 16, 4, 0), Dim::dp, 1).empty());
}

TEST_CASE("fold equivariance: the hierarchical split needs blocks that move domains onto domains", "[plan][symmetry]") {
  // EP over the whole stage (TP 2 x DP 16 = 32 ranks, 4 servers of 8): split per server. A block of one
  // replica (2 GPUs) shifts server 0's last replica into server 1: its domain group is not shifted whole.
  Scenario s = moe(2, 16, 32, 1);
  s.parallel.ep_dispatcher = ParallelSpec::EpDispatcher::hierarchical;
  s.parallel.domain_gpus = 8;
  CHECK_FALSE(expert_groups_break_fold(s, Dim::dp, 1).empty());
  CHECK_FALSE(expert_groups_break_fold(s, Dim::dp, 2).empty());
  CHECK(expert_groups_break_fold(s, Dim::dp, 4).empty());
}

TEST_CASE("fold equivariance: dense plans always fold", "[plan][symmetry]") {
  Scenario s;
  s.parallel.tp = 2;
  s.parallel.dp = 8;
  CHECK(expert_groups_break_fold(s, Dim::dp, 1).empty());
}
