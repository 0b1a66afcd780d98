#include <catch2/catch.hpp>

#include "tests/support/small_scenario.hpp"

#include "sim/plan/executor.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/fixed_comm.hpp"

using namespace plansim;

namespace {

Scenario overlapped() {
  Scenario s = testing::small_scenario(2, 1, 1, 1);
  s.parallel.sequence_parallel = true;
  s.training.overlap.tp_comm = true;
  return s;
}

ComputeParams exact() {
  ComputeParams p = ComputeParams::defaults(testing::test_a100(), DType::bf16);
  p.launch_overhead = Time::zero();
  p.comm_slowdown = 0;
  return p;
}

double iteration(const Scenario& s, Time per_collective) {
  CompiledPlan plan = compile_plan(s);
  Simulation sim;
  testing::FixedComm comm(sim, [&](const CommRequest&) { return per_collective; });
  return execute(plan, ComputeModel(exact()), comm, sim).iteration.seconds();
}

bool is_tp(const ProgramOp& o, CommOp c) {
  return o.kind == OpKind::collective && o.stream == StreamKind::tp_comm && o.comm == c;
}

}  // namespace

TEST_CASE("TP overlap: the reduce-scatter starts with its block and the next kernel waits for it", "[plan]") {
  const CompiledPlan plan = compile_plan(overlapped());
  const Program& p = plan.programs[0];
  int blocks = 0;
  for (size_t i = 1; i + 2 < p.ops.size(); ++i) {
    if (p.ops[i].kind != OpKind::compute || !is_tp(p.ops[i - 1], CommOp::all_gather) ||
        !is_tp(p.ops[i + 1], CommOp::reduce_scatter))
      continue;
    ++blocks;
    const ProgramOp& rs = p.ops[i + 1];
    // The reduce-scatter does not wait for the block it pairs with.
    for (uint32_t d = rs.dep_begin; d < rs.dep_begin + rs.dep_count; ++d) CHECK(p.deps[d] != i);
    // The rank's next compute kernel depends on it.
    size_t next = i + 2;
    while (next < p.ops.size() && p.ops[next].kind != OpKind::compute && p.ops[next].kind != OpKind::send) ++next;
    REQUIRE(next < p.ops.size());
    bool waits = false;
    for (uint32_t d = p.ops[next].dep_begin; d < p.ops[next].dep_begin + p.ops[next].dep_count; ++d)
      waits = waits || p.deps[d] == i + 1;
    CHECK(waits);
  }
  CHECK(blocks == 8 * 4);  // 8 layers × (attention, MLP) × (forward, backward)
}

TEST_CASE("TP overlap: each block takes max(its compute, its all-gather + reduce-scatter)", "[plan][exec]") {
  // One micro-batch, one rank pair: the blocks run back to back, block i from t_i to
  // t_i + max(G_i, 2C) (its two collectives of C each run beside it on the TP stream). So raising the
  // collectives from free to C adds exactly Σ_i max(0, 2C − G_i): comm that outlasts its block is
  // exposed. (With the collectives free-running, as before, it added nothing while Σ 2C < Σ G.)
  const Scenario s = overlapped();
  const CompiledPlan plan = compile_plan(s);
  const ComputeModel cm(exact());
  const Program& p = plan.programs[0];
  std::vector<double> g;
  for (size_t i = 1; i + 1 < p.ops.size(); ++i)
    if (p.ops[i].kind == OpKind::compute && is_tp(p.ops[i - 1], CommOp::all_gather) &&
        is_tp(p.ops[i + 1], CommOp::reduce_scatter))
      g.push_back(cm.ops_time(plan.costs[p.ops[i].cost].kernels).seconds());
  REQUIRE(g.size() == 32);
  double total_g = 0, g_min = 1e9, g_max = 0;
  for (double x : g) total_g += x, g_min = std::min(g_min, x), g_max = std::max(g_max, x);
  REQUIRE(g_min < g_max);
  const double c = 0.6 * g_min;  // 2C = 1.2 × the cheapest block: the cheap blocks expose comm, the others hide it
  double exposed = 0;
  for (double x : g) exposed += std::max(0.0, 2 * c - x);
  REQUIRE(exposed > 0);
  REQUIRE(2 * c * static_cast<double>(g.size()) < total_g);
  const double t0 = iteration(s, Time::zero()), tc = iteration(s, Time::from_seconds(c));
  CHECK(tc - t0 == Approx(exposed).epsilon(1e-6));
}
