// Schedule slots and the stage time breakdown (report/schedule_slots.hpp) on a hand-made program.
#include <catch2/catch.hpp>

#include "sim/report/schedule_slots.hpp"

using namespace plansim;

namespace {
ProgramOp op(OpKind kind, Phase ph, int mb, uint32_t group = 0, uint16_t chunk = 0) {
  ProgramOp o;
  o.kind = kind;
  o.phase = ph;
  o.micro_batch = mb;
  o.group = group;
  o.chunk = chunk;
  return o;
}
OpTiming at(double a, double b) { return {Time::s(a), Time::s(b)}; }
}  // namespace

TEST_CASE("schedule slots: a schedule op spans its compute ops; transfers are no slot", "[report][slots]") {
  CompiledPlan plan;
  plan.groups = {Group{Dim::tp, {0, 1}}};
  Program p;
  p.stage = 2;
  p.ops = {op(OpKind::compute, Phase::F, 0), op(OpKind::collective, Phase::F, 0), op(OpKind::compute, Phase::F, 0),
           op(OpKind::compute, Phase::F, 1, 0, 1), op(OpKind::compute, Phase::B, 0), op(OpKind::compute, Phase::W, -1)};
  plan.programs = {p};
  ExecutionResult exec;
  exec.timings = {{at(0, 1), at(1, 1.5), at(1.5, 2), at(2, 3), at(3, 5), at(5, 6)}};
  const auto slots = schedule_slots(plan, exec, 0);
  REQUIRE(slots.size() == 3);
  CHECK(slots[0].stage == 2);
  CHECK((slots[0].phase == Phase::F && slots[0].micro_batch == 0 && slots[0].chunk == 0));
  CHECK(slots[0].start_s == Approx(0));
  CHECK(slots[0].end_s == Approx(2));
  CHECK((slots[1].micro_batch == 1 && slots[1].chunk == 1));
  CHECK((slots[2].phase == Phase::B && slots[2].start_s == Approx(3) && slots[2].end_s == Approx(5)));
}

TEST_CASE("stage time breakdown: compute first, overlapping dimensions split, bubble before the flush", "[report][slots]") {
  CompiledPlan plan;
  plan.groups = {Group{Dim::tp, {0, 1}}, Group{Dim::dp, {0, 2}}};
  Program p;
  p.ops = {op(OpKind::compute, Phase::F, 0), op(OpKind::collective, Phase::F, 0, 0),
           op(OpKind::collective, Phase::W, -1, 1), op(OpKind::send, Phase::F, 0)};
  plan.programs = {p};
  ExecutionResult exec;
  // compute [0,1]; TP [0.5,3] (hidden under compute until 1); DP [2,4]; a send [6,7] after the flush.
  exec.timings = {{at(0, 1), at(0.5, 3), at(2, 4), at(6, 7)}};
  const StageTimeBreakdown t = stage_time_breakdown(plan, exec, 0, Time::s(8), Time::s(4.5));
  CHECK(t.compute_s == Approx(1));
  CHECK(t.exposed_s[static_cast<size_t>(Dim::tp)] == Approx(1 + 0.5));  // [1,2] alone, [2,3] shared with DP
  CHECK(t.exposed_s[static_cast<size_t>(Dim::dp)] == Approx(0.5 + 1));  // [2,3] shared, [3,4] alone
  CHECK(t.exposed_s[static_cast<size_t>(Dim::pp)] == Approx(1));        // the send
  CHECK(t.bubble_s == Approx(0.5));                                      // [4, 4.5]
  CHECK(t.idle_s == Approx(1.5 + 1));                                    // [4.5, 6] and [7, 8]
  CHECK(t.total_s() == Approx(8));
}
