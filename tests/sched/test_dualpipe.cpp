#include <catch2/catch.hpp>

#include "sim/sched/registry.hpp"
#include "sim/sched/timeline.hpp"

using namespace plansim;

// DualPipe (DeepSeek-V3 technical report, arXiv 2412.19437, Table 2), checked on the order of
// sim/sched/dualpipe.cpp with uniform stages and free communication. Durations are per chunk (one
// stage's layers): f forward, b input gradient, w weight gradient; the paper's B is the full
// backward b + w and F&B (an overlapped forward + backward pair) takes f + b + w here, since
// overlapping hides communication, not compute.

namespace {
struct Run {
  StageOrders orders;
  ScheduleTiming timing;
};
Run run(const std::string& name, int p, int m, OpDurations d) {
  auto s = make_schedule(name);
  const ScheduleShape sh{p, m, 1};
  Run r{s->build(sh), {}};
  check_orders(r.orders, s->layout(sh), s->splits_backward());
  r.timing = time_schedule(r.orders, s->layout(sh), s->splits_backward(), d);
  return r;
}
double idle(const ScheduleTiming& t, int s) { return t.makespan - t.busy[static_cast<size_t>(s)]; }
}  // namespace

TEST_CASE("dualpipe layout: stage s holds pieces s and p-1-s; the lanes run in opposite directions", "[sched][dualpipe]") {
  const PipelineLayout l = schedule_layout("dualpipe", {8, 16, 1});
  CHECK(l.is_mirrored());
  CHECK(l.pieces() == 8);
  CHECK(l.chunks() == 2);
  CHECK(l.piece(0, 0) == 0);
  CHECK(l.piece(0, 1) == 7);
  CHECK(l.piece(5, 1) == 2);
  CHECK(l.holds(0, 7));
  CHECK(l.holds(7, 0));
  CHECK_FALSE(l.holds(3, 0));
  // Lane 0 (micro-batches 0..7) goes 0 -> 7 through chunk 0, lane 1 (8..15) goes 7 -> 0 through chunk 1.
  CHECK(l.holder(1, 0).stage == 1);
  CHECK(l.holder(1, 1).stage == 6);
  CHECK(l.holder(1, 1).chunk == 1);
  CHECK(l.visits(0, 7));
  CHECK_FALSE(l.visits(0, 8));
  CHECK(l.visits(1, 8));
  // Megatron's interleaved layout for comparison: piece c·p + s.
  const PipelineLayout m = schedule_layout("interleaved", {4, 8, 2});
  CHECK(m.piece(1, 1) == 5);
  CHECK(m.holder(5, 0).stage == 1);
}

TEST_CASE("dualpipe: complete, deadlock-free orders for p in {2,4,8,16} and several m", "[sched][dualpipe]") {
  for (int p : {2, 4, 8, 16})
    for (int m : {2 * p, 2 * p + 2, 3 * p + (3 * p) % 2, 4 * p, 64}) {
      if (m < 2 * p) continue;
      INFO("p=" << p << " m=" << m);
      for (OpDurations d : {OpDurations{1, 1, 1, 0}, OpDurations{1, 2, 1, 0.3}, OpDurations{2, 1, 0.5, 1}})
        CHECK_NOTHROW(run("dualpipe", p, m, d));
      // Each stage runs every micro-batch once: m/2 through each of its two chunks.
      Run r = run("dualpipe", p, m, {1, 1, 1, 0});
      for (const auto& o : r.orders) {
        int forwards = 0;
        for (const auto& op : o) forwards += op.phase == Phase::F;
        CHECK(forwards == m);
      }
    }
}

TEST_CASE("dualpipe bubble = Table 2's (PP/2 - 1)(F&B + B - 3W), F = b >= W", "[sched][dualpipe]") {
  // The table's formula counts the figure's cells: it is exact when a forward and an input-gradient
  // chunk take equal time and W is no longer than them (the shapes of Fig. 5). Every stage idles
  // the same.
  for (OpDurations d : {OpDurations{1, 1, 1, 0}, OpDurations{2, 2, 1, 0}, OpDurations{1, 1, 0.5, 0},
                        OpDurations{1, 1, 0, 0}, OpDurations{3, 3, 2, 0}})
    for (int p : {2, 4, 8, 16})
      for (int m : {2 * p, 2 * p + 6, 4 * p}) {
        const double F = d.f, B = d.b + d.w, W = d.w, FandB = F + B;
        const double table2 = (p / 2.0 - 1) * (FandB + B - 3 * W);
        const ScheduleTiming t = run("dualpipe", p, m, d).timing;
        INFO("p=" << p << " m=" << m << " f=" << d.f << " b=" << d.b << " w=" << d.w);
        for (int s = 0; s < p; ++s) CHECK(idle(t, s) == Approx(table2));
        // Busy time: m forwards and m backwards of one chunk each.
        CHECK(t.busy[0] == Approx(m * (F + B)));
      }
}

TEST_CASE("dualpipe beats 1F1B's (PP-1)(F+B) and ZB-H1's bubble", "[sched][dualpipe]") {
  // Same m micro-batches, same chunk (stage) sizes; 1F1B's B is the full backward.
  for (OpDurations d : {OpDurations{1, 1, 1, 0}, OpDurations{1, 2, 1, 0}, OpDurations{2, 1, 1, 0},
                        OpDurations{1, 1, 2, 0}, OpDurations{1, 2, 1, 0.2}})
    for (int p : {4, 8, 16}) {
      const int m = 2 * p + 4;
      const double f = d.f, b = d.b + d.w;
      const ScheduleTiming dual = run("dualpipe", p, m, d).timing;
      const ScheduleTiming one = run("1f1b", p, m, {f, b, 0, d.comm}).timing;
      const ScheduleTiming zb = run("zb-h1", p, m, d).timing;
      INFO("p=" << p << " f=" << d.f << " b=" << d.b << " w=" << d.w << " comm=" << d.comm);
      if (d.comm == 0) CHECK(idle(one, 0) == Approx((p - 1) * (f + b)));
      CHECK(dual.makespan < one.makespan);
      CHECK(dual.makespan <= zb.makespan);
      for (int s = 0; s < p; ++s) CHECK(idle(dual, s) < idle(one, s));
    }
}

TEST_CASE("dualpipe holds PP+1 chunk activations on every stage (Table 2), 1F1B PP on stage 0", "[sched][dualpipe]") {
  for (int p : {2, 4, 8, 16}) {
    const ScheduleTiming dual = run("dualpipe", p, 2 * p + 2, {1, 1, 1, 0}).timing;
    const ScheduleTiming one = run("1f1b", p, 2 * p + 2, {1, 2, 0, 0}).timing;
    CHECK(one.peak_in_flight[0] == p);
    for (int s = 0; s < p; ++s) CHECK(dual.peak_in_flight[static_cast<size_t>(s)] == p + 1);
  }
}

TEST_CASE("dualpipe order: warm-up, paired steady state and deferred W as in the reference", "[sched][dualpipe]") {
  // p = 4, m = 8, stage 0 (h = 0, near = chunk 0 = micro-batches 0..3, far = chunk 1 = 4..7).
  const StageOrders o = run("dualpipe", 4, 8, {1, 1, 1, 0}).orders;
  const std::vector<SchedOp>& s0 = o[0];
  auto F = [](int mb, int c, bool paired = false) { return SchedOp{Phase::F, mb, c, false, paired}; };
  auto B = [](int mb, int c, bool with_w) { return SchedOp{Phase::B, mb, c, with_w, false}; };
  auto W = [](int mb, int c) { return SchedOp{Phase::W, mb, c, false, false}; };
  const std::vector<SchedOp> expected = {
      F(0, 0), F(1, 0),                        // 1. 2(n-h-1) = 2 forwards of the near lane
      F(2, 0), F(4, 1),                        // 2. h+1 = 1 x [F near, F far]
      B(4, 1, false), W(4, 1), F(5, 1),        // 3. n-h-1 = 1 x [B far (W deferred), W, F far]
      F(3, 0, true), B(5, 1, true),            // 4. m/2-p+h+1 = 1 x [F near & B far, F far & B near]
      F(6, 1, true), B(0, 0, true),
      B(6, 1, true), F(7, 1, true), B(1, 0, true),  // 5. n-h-1 = 1 x [B far, F far & B near]
      B(7, 1, true), B(2, 0, false),           // 6. h+1 = 1 x [B far, B near]; deferral from i = 0 on
      W(2, 0), B(3, 0, false),                 // 7. n-h-1 = 1 x [W, B near (deferred)]
      W(3, 0)};                                // 8. h+1 = 1 x W
  CHECK(s0 == expected);
}
