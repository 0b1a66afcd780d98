#include <catch2/catch.hpp>

#include "tests/support/small_scenario.hpp"

#include "sim/core/error.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/rank_mapping.hpp"
#include "sim/report/report.hpp"
#include "tests/support/cluster.hpp"
#include "tests/support/fixed_comm.hpp"

using namespace plansim;

namespace {

Scenario small(int tp, int pp, int dp, int m) { return testing::small_scenario(tp, pp, dp, m); }

// No launch overhead and no comm slowdown: exact closed forms.
ComputeParams params() {
  ComputeParams p = ComputeParams::defaults(testing::test_a100(), DType::bf16);
  p.launch_overhead = Time::zero();
  p.comm_slowdown = 0;
  return p;
}

Report simulate(const Scenario& s, const std::function<Time(const CommRequest&)>& cost, ComputeParams cp = params()) {
  CompiledPlan plan = compile_plan(s);
  Simulation sim;
  testing::FixedComm comm(sim, cost);
  ExecutionResult r = execute(plan, ComputeModel(cp), comm, sim);
  return build_report(s, plan, r, testing::test_a100());
}

Time free_comm(const CommRequest&) { return Time::zero(); }

}  // namespace

TEST_CASE("rank mapping: order innermost first builds TP inside, PP outside", "[plan]") {
  ParallelSpec p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 4;
  p.ep = 2;
  RankMapping m(p);
  CHECK(m.world() == 16);
  CHECK(m.group(5, {Dim::tp}) == std::vector<int>{4, 5});
  CHECK(m.group(0, {Dim::pp}) == std::vector<int>{0, 8});
  CHECK(m.group(0, {Dim::ep, Dim::dp}) == std::vector<int>{0, 2, 4, 6});
  CHECK(m.group(0, {Dim::ep}) == std::vector<int>{0, 2});
  CHECK(m.group(0, {Dim::dp}) == std::vector<int>{0, 4});
  for (int r = 0; r < 16; ++r) CHECK(m.rank(m.coords(r)) == r);
  p.order = {Dim::dp, Dim::tp, Dim::cp, Dim::ep, Dim::pp};
  RankMapping m2(p);
  CHECK(m2.group(0, {Dim::tp}) == std::vector<int>{0, 2});
}

TEST_CASE("executed FLOPs add up to the model FLOPs for every plan shape", "[plan]") {
  // Σ over ranks of every non-recompute compute op's FLOPs = 72·B·s·l·h²(1 + s/6h + V/12lh)-style total.
  struct Case { int tp, pp, dp, cp; bool sp; int zero; const char* sched; int v; Recompute rc; };
  for (Case c : {Case{1, 1, 1, 1, false, 0, "1f1b", 1, Recompute::none}, Case{2, 2, 2, 1, true, 1, "1f1b", 1, Recompute::selective},
                 Case{2, 2, 1, 2, false, 3, "interleaved", 2, Recompute::full}, Case{1, 4, 1, 1, false, 0, "zb-h1", 1, Recompute::none},
                 Case{1, 2, 2, 1, false, 2, "gpipe", 1, Recompute::none}, Case{1, 2, 2, 1, false, 1, "dualpipe", 1, Recompute::none},
                 Case{2, 2, 1, 1, true, 2, "dualpipe", 1, Recompute::full},
                 Case{2, 2, 2, 1, true, 3, "interleaved", 2, Recompute::selective_op}}) {
    Scenario s = small(c.tp, c.pp, c.dp, 4);
    s.parallel.cp = c.cp;
    s.parallel.sequence_parallel = c.sp;
    s.parallel.zero = c.zero;
    s.schedule = {c.sched, c.v};
    s.training.recompute = c.rc;
    CompiledPlan plan = compile_plan(s);
    double model = 0, recompute = 0;
    for (const auto& p : plan.programs)
      for (const auto& op : p.ops)
        if (op.kind == OpKind::compute && op.micro_batch >= 0) (op.recompute ? recompute : model) += plan.costs[op.cost].flops;
    INFO(c.sched << " tp" << c.tp << " pp" << c.pp << " dp" << c.dp << " cp" << c.cp);
    CHECK(model == Approx(model_flops_per_iteration(s.model, s.training.global_batch)).epsilon(1e-9));
    if (c.rc == Recompute::none) CHECK(recompute == 0);
    else CHECK(recompute > 0);
    Report r = simulate(s, [](const CommRequest& q) { return Time::us(1) + transfer_time(q.bytes, GBps(100)); });
    CHECK(r.iteration > Time::zero());
    CHECK(r.hfu >= r.mfu);
  }
}

TEST_CASE("MoE with EP: all-to-alls are matched and the plan runs", "[plan]") {
  Scenario s = small(1, 1, 4, 2);
  s.model.moe = MoeSpec{8, 2, 2048, 2};
  s.parallel.ep = 2;
  Report r = simulate(s, [](const CommRequest& q) { return transfer_time(q.bytes, GBps(50)); });
  CHECK(r.exposed_comm_s[static_cast<size_t>(Dim::ep)] > 0);
}

TEST_CASE("executor: pipeline bubble matches (p-1)/(m+p-1) with free communication", "[plan][exec]") {
  // Uniform stages need the embedding and logits to be negligible next to the layers: a tiny
  // vocabulary and a wide model (layer FLOPs grow as h², the embedding/norm traffic as h).
  for (auto [pp, m] : {std::pair{4, 16}, std::pair{2, 8}}) {
    Scenario s = small(1, pp, 1, m);
    testing::make_layers_dominate(s);
    Report r = simulate(s, free_comm);
    INFO("pp=" << pp << " m=" << m);
    for (const auto& st : r.stages) {
      CHECK(st.bubble_overhead == Approx(double(pp - 1) / m).epsilon(0.02));
      // The iteration also holds the optimizer step after the flush.
      CHECK(st.bubble_fraction * r.iteration.seconds() / st.flush_window.seconds() == Approx(double(pp - 1) / (m + pp - 1)).epsilon(0.02));
    }
  }
}

TEST_CASE("seed overlap: 1000 ms compute + 200 ms comm = 1200 ms serial, 1000 ms + last bucket overlapped", "[plan][exec][seed]") {
  // Two ranks; compute is 1000 ms in k chunks, each chunk's gradients reduced by a collective of
  // 200/k ms. Serial: compute then one 200 ms all-reduce. Bucketed: only the last bucket is exposed.
  ComputeParams cp = params();
  const double bytes_per_ms = cp.hbm.value() * cp.hbm_efficiency * 1e-3;
  for (int k : {1, 4, 10}) {
    for (bool overlap : {false, true}) {
      CompiledPlan plan;
      plan.world = 2;
      plan.groups.push_back(Group{Dim::dp, {0, 1}, 2});
      plan.program_of_rank = {0, 1};
      plan.costs.push_back(ComputeCost{"chunk", {OpCost{"e", OpClass::elementwise, 0, 1000.0 / k * bytes_per_ms}}, 0});
      plan.held = {StageHolding::full(1)};
      for (uint32_t r = 0; r < 2; ++r) {
        Program p;
        p.rank = r;
        uint32_t seq = 0;
        for (int i = 0; i < k; ++i) {
          ProgramOp c;
          c.micro_batch = 0;
          p.ops.push_back(c);
          if (overlap || i == k - 1) {
            ProgramOp a;
            a.kind = OpKind::collective;
            a.stream = StreamKind::dp_comm;
            a.group = 0;
            a.seq = seq++;
            a.bytes = overlap ? 1.0 / k : 1.0;
            a.dep_begin = static_cast<uint32_t>(p.deps.size());
            a.dep_count = 1;
            p.deps.push_back(static_cast<uint32_t>(p.ops.size() - 1));
            p.ops.push_back(a);
          }
        }
        plan.programs.push_back(p);
      }
      Simulation sim;
      testing::FixedComm comm(sim, [](const CommRequest& q) { return Time::ms(200 * q.bytes.value()); });
      cp.comm_slowdown = 0;
      ExecutionResult r = execute(plan, ComputeModel(cp), comm, sim);
      INFO("k=" << k << " overlap=" << overlap);
      const double want = overlap ? 1000 + 200.0 / k : 1200;
      CHECK(r.iteration.seconds() * 1e3 == Approx(want).epsilon(1e-6));
    }
  }
}

TEST_CASE("executor: compute is slowed only for the part that overlaps a transfer", "[plan][exec]") {
  // Two ranks, comm_slowdown 0.1. Each runs compute ops back to back on the compute stream and, from
  // t = 0 on the DP stream, a collective X of fixed duration. With A (200 us of work) then B (1000 us)
  // and X taking 220 us, A overlaps X entirely and ends at 220 us, the instant X lands; B starts then
  // and is not slowed (a zero-length overlap costs nothing, whichever of the two events runs first).
  ComputeParams cp = params();
  cp.comm_slowdown = 0.1;
  const double bytes_per_us = cp.hbm.value() * cp.hbm_efficiency * 1e-6;
  auto run = [&](const std::vector<double>& work_us, double comm_us) {
    CompiledPlan plan;
    plan.world = 2;
    plan.groups.push_back(Group{Dim::dp, {0, 1}, 2});
    plan.program_of_rank = {0, 1};
    for (double w : work_us) plan.costs.push_back(ComputeCost{"c", {OpCost{"e", OpClass::elementwise, 0, w * bytes_per_us}}, 0});
    plan.held = {StageHolding::full(1)};
    for (uint32_t r = 0; r < 2; ++r) {
      Program p;
      p.rank = r;
      for (uint32_t c = 0; c < work_us.size(); ++c) {
        ProgramOp op;
        op.micro_batch = 0;
        op.cost = c;
        p.ops.push_back(op);
      }
      ProgramOp x;
      x.kind = OpKind::collective;
      x.stream = StreamKind::dp_comm;
      x.group = 0;
      x.bytes = 1;
      p.ops.push_back(x);
      plan.programs.push_back(p);
    }
    Simulation sim;
    testing::FixedComm comm(sim, [comm_us](const CommRequest&) { return Time::us(comm_us); });
    return execute(plan, ComputeModel(cp), comm, sim);
  };
  // A then B; X takes exactly A's slowed time.
  ExecutionResult r = run({200, 1000}, 220);
  CHECK(r.timings[0][0].end.micros() == Approx(220).epsilon(1e-9));
  CHECK(r.timings[0][1].end.micros() == Approx(1220).epsilon(1e-9));
  CHECK(r.timings[0][2].end.micros() == Approx(220).epsilon(1e-9));
  // One 1000 us op, X of 200 us: 200 us at 1/1.1 speed (181.8 us of work), the rest at full speed.
  r = run({1000}, 200);
  CHECK(r.timings[0][0].end.micros() == Approx(200 + (1000 - 200 / 1.1)).epsilon(1e-9));
  // X longer than the op: slowed throughout.
  r = run({1000}, 5000);
  CHECK(r.timings[0][0].end.micros() == Approx(1100).epsilon(1e-9));
}

TEST_CASE("compiled DP overlap leaves at most the last bucket exposed", "[plan][exec]") {
  Scenario s = small(1, 1, 2, 4);
  s.training.grad_bucket = MB(20);
  const Rate bw = GBps(1000);  // fast enough that a bucket's reduction hides under a layer's backward
  auto cost = [bw](const CommRequest& q) { return transfer_time(q.bytes, bw); };
  s.training.overlap.grad_reduce = false;
  Report serial = simulate(s, cost);
  s.training.overlap.grad_reduce = true;
  Report overlapped = simulate(s, cost);
  const double dp_serial = serial.exposed_comm_s[static_cast<size_t>(Dim::dp)];
  const double dp_overlap = overlapped.exposed_comm_s[static_cast<size_t>(Dim::dp)];
  // Without overlap, all gradient traffic is exposed: 8 layers' + embedding + output gradients.
  const double grads = count_parameters(s.model).total * 2;
  CHECK(dp_serial == Approx(grads / 1000e9).epsilon(1e-3));
  // With overlap, only the last bucket (≤ one bucket + one layer of bytes) is exposed.
  const double layer = count_parameters(s.model).per_dense_layer * 2;
  CHECK(dp_overlap <= (20e6 + layer + count_parameters(s.model).embedding * 2) / 1000e9);
  CHECK(dp_overlap < dp_serial);
  CHECK(overlapped.iteration < serial.iteration);
  CHECK(overlapped.overlap_fraction > 0.3);
  CHECK(serial.overlap_fraction == Approx(0).margin(1e-9));
}

TEST_CASE("report: MFU uses model FLOPs and the dtype's dense peak", "[plan][report]") {
  Scenario s = small(1, 1, 1, 2);
  Report r = simulate(s, free_comm);
  CHECK(r.mfu == Approx(r.model_flops / (r.iteration.seconds() * 312e12)));
  CHECK(r.tokens_per_s == Approx(2 * 1024 / r.iteration.seconds()));
  CHECK(r.overlap_fraction == 1.0);  // no communication at all
}

namespace {
// Two ranks, each: one compute op, then `second` (a send/recv or a collective on group 0).
CompiledPlan two_rank_plan(ProgramOp first_rank_op, ProgramOp second_rank_op) {
  CompiledPlan plan;
  plan.world = 2;
  plan.groups.push_back(Group{Dim::dp, {0, 1}, 2});
  plan.program_of_rank = {0, 1};
  plan.costs.push_back(ComputeCost{"c", {OpCost{"e", OpClass::elementwise, 0, 1e6}}, 0});
  plan.held = {StageHolding::full(1)};
  for (uint32_t r = 0; r < 2; ++r) {
    Program p;
    p.rank = r;
    p.ops.push_back(ProgramOp{});
    ProgramOp op = r == 0 ? first_rank_op : second_rank_op;
    op.dep_begin = 0;
    op.dep_count = 1;
    p.deps.push_back(0);
    p.ops.push_back(op);
    plan.programs.push_back(p);
  }
  return plan;
}
ProgramOp p2p_op(OpKind kind, uint32_t peer, uint32_t tag) {
  ProgramOp op;
  op.kind = kind;
  op.stream = StreamKind::pp_comm;
  op.comm = CommOp::send_recv;
  op.peer = peer;
  op.tag = tag;
  op.bytes = 1e6;
  return op;
}
ProgramOp dp_op(CommOp comm, double bytes) {
  ProgramOp op;
  op.kind = OpKind::collective;
  op.stream = StreamKind::dp_comm;
  op.comm = comm;
  op.bytes = bytes;
  return op;
}
ExecutionResult run_plan(const CompiledPlan& plan) {
  Simulation sim;
  testing::FixedComm comm(sim, [](const CommRequest& q) { return transfer_time(q.bytes, GBps(1)); });
  return execute(plan, ComputeModel(params()), comm, sim);
}
}  // namespace

TEST_CASE("executor: a send meets the recv with the same (sender, receiver, tag), and only that one", "[plan][exec]") {
  // Matched: both ends start when the later one is ready and end 1 MB / 1 GB/s = 1 ms later.
  ExecutionResult ok = run_plan(two_rank_plan(p2p_op(OpKind::send, 1, 7), p2p_op(OpKind::recv, 0, 7)));
  CHECK(ok.comm_calls == 1);
  CHECK(ok.timings[0][1].start == ok.timings[1][1].start);
  CHECK((ok.timings[0][1].end - ok.timings[0][1].start) == Time::ms(1));
  CHECK(ok.timings[1][1].end == ok.timings[0][1].end);
  // A different tag, or the receiver naming the wrong sender, never matches: the plan deadlocks.
  CHECK_THROWS_AS(run_plan(two_rank_plan(p2p_op(OpKind::send, 1, 7), p2p_op(OpKind::recv, 0, 8))), InternalError);
  CHECK_THROWS_AS(run_plan(two_rank_plan(p2p_op(OpKind::send, 1, 7), p2p_op(OpKind::recv, 1, 7))), InternalError);
}

TEST_CASE("executor: the members of one collective must agree on its operation and size", "[plan][exec]") {
  ExecutionResult ok = run_plan(two_rank_plan(dp_op(CommOp::all_reduce, 2e6), dp_op(CommOp::all_reduce, 2e6)));
  CHECK(ok.comm_calls == 1);
  CHECK((ok.timings[1][1].end - ok.timings[1][1].start) == Time::ms(2));
  CHECK_THROWS_AS(run_plan(two_rank_plan(dp_op(CommOp::all_reduce, 2e6), dp_op(CommOp::all_reduce, 3e6))),
                  InternalError);
  CHECK_THROWS_AS(run_plan(two_rank_plan(dp_op(CommOp::all_reduce, 2e6), dp_op(CommOp::all_gather, 2e6))),
                  InternalError);
}
