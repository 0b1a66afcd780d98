#include <catch2/catch.hpp>

#include "sim/plan/a2a_overlap.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/report/report.hpp"
#include "sim/sched/registry.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/fixed_comm.hpp"
#include "tests/support/small_scenario.hpp"

using namespace plansim;

namespace {
SchedOp f(int mb, int c = 0, bool paired = false) { return {Phase::F, mb, c, false, paired}; }
SchedOp b(int mb, int c = 0) { return {Phase::B, mb, c, false, false}; }
}  // namespace

TEST_CASE("a2a overlap: without a pipeline, F(i+1) runs with B(i) (Megatron's combined 1F1B)", "[plan][moe]") {
  StageOrders o = {{f(0), b(0), f(1), b(1), f(2), b(2), f(3), b(3)}};
  pair_for_a2a_overlap(o);
  CHECK(o[0] == std::vector<SchedOp>{f(0), f(1, 0, true), b(0), f(2, 0, true), b(1), f(3, 0, true), b(2), b(3)});
}

TEST_CASE("a2a overlap: interleaved 1F1B pairs every steady-state F with the B after it", "[plan][moe]") {
  const ScheduleShape shape{4, 8, 2};
  auto sched = make_schedule("interleaved");
  StageOrders o = sched->build(shape);
  const StageOrders before = o;
  pair_for_a2a_overlap(o);
  check_orders(o, sched->layout(shape), false);  // still a valid order (throws otherwise)
  for (size_t st = 0; st < o.size(); ++st) {
    int pairs = 0, f_then_b = 0;
    for (size_t i = 0; i + 1 < before[st].size(); ++i)
      f_then_b += before[st][i].phase == Phase::F && before[st][i + 1].phase == Phase::B ? 1 : 0;
    for (size_t i = 0; i < o[st].size(); ++i) {
      if (!o[st][i].paired) continue;
      ++pairs;
      // Never with its own backward.
      CHECK_FALSE((o[st][i + 1].micro_batch == o[st][i].micro_batch && o[st][i + 1].chunk == o[st][i].chunk));
    }
    CHECK(pairs > 0);
    CHECK(pairs <= f_then_b);  // pairing only merges steps the order already alternates
  }
}

TEST_CASE("a2a overlap: the expert all-to-alls hide under the other micro-batch's compute", "[plan][moe]") {
  // pp 1, EP 2 over dp 2; every all-to-all takes A, every other transfer nothing. Without overlap each
  // all-to-all sits between two computes: iteration = compute + (all-to-alls) · A exactly. With it, only
  // the first F's and the last B's stay exposed (plus what the paired passes cannot cover).
  Scenario s = testing::small_scenario(1, 1, 2, 8);
  s.model.moe = MoeSpec{8, 2, 1024, 1};
  s.parallel.ep = 2;
  ComputeParams cp = ComputeParams::defaults(testing::test_a100(), DType::bf16);
  cp.launch_overhead = Time::zero();
  cp.comm_slowdown = 0;
  Time a = Time::us(20);  // short next to a block's compute, so a paired pass can hide it
  auto run = [&](bool overlap) {
    s.schedule.moe_a2a_overlap = overlap;
    CompiledPlan plan = compile_plan(s);
    Simulation sim;
    testing::FixedComm comm(sim, [&](const CommRequest& r) { return r.op == CommOp::all_to_all ? a : Time::zero(); });
    ExecutionResult r = execute(plan, ComputeModel(cp), comm, sim);
    return build_report(s, plan, r, testing::test_a100()).iteration;
  };
  const Time off = run(false), on = run(true);
  // 8 layers · 8 micro-batches · 4 all-to-alls (2 forward, 2 backward): the serial share.
  const double serial = 8 * 8 * 4 * a.seconds();
  a = Time::zero();  // the same run with free all-to-alls: the compute alone
  const Time free_off = run(false);
  CHECK(off.seconds() == Approx(free_off.seconds() + serial).epsilon(1e-9));
  CHECK(on.seconds() >= free_off.seconds());
  // The unpaired first F and last B expose their 8 layers · 2 all-to-alls each; the 7 pairs hide theirs.
  CHECK(on.seconds() < free_off.seconds() + 0.25 * serial);
  CHECK(on < off);
}
