#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/sched/registry.hpp"
#include "sim/sched/timeline.hpp"

using namespace plansim;

namespace {
ScheduleTiming run(const std::string& name, int p, int m, int v, OpDurations d) {
  auto s = make_schedule(name);
  ScheduleShape sh{p, m, v};
  StageOrders o = s->build(sh);
  check_orders(o, s->layout(sh), s->splits_backward());
  return time_schedule(o, s->layout(sh), s->splits_backward(), d);
}
}  // namespace

TEST_CASE("every schedule produces a complete, dependency-respecting order", "[sched]") {
  for (const auto& name : schedule_names())
    for (int p : {1, 2, 4, 8})
      for (int m : {4, 8, 16}) {
        const int v = name == "interleaved" ? 2 : 1;
        auto s = make_schedule(name);
        ScheduleShape sh{p, m, v};
        if (name == "interleaved" && m % p != 0) continue;
        if (name == "dualpipe" && (p % 2 != 0 || m < 2 * p)) continue;  // the loader's conditions
        StageOrders o = s->build(sh);
        CHECK_NOTHROW(check_orders(o, s->layout(sh), s->splits_backward()));
        CHECK_NOTHROW(time_schedule(o, s->layout(sh), s->splits_backward(), OpDurations{1, 1, 1, 0.1}));
      }
}

TEST_CASE("GPipe and 1F1B bubble: (p-1)/(m+p-1) of the time, overhead (p-1)/m", "[sched]") {
  // Uniform stages, free communication: every stage is busy m·(f+b) and the pipeline fill and drain
  // add (p−1)·(f+b), so idle/makespan = (p−1)/(m+p−1) and idle/busy = (p−1)/m.
  for (const char* name : {"gpipe", "1f1b"})
    for (auto [p, m] : {std::pair{4, 16}, std::pair{16, 4}, std::pair{8, 8}, std::pair{2, 1}}) {
      ScheduleTiming t = run(name, p, m, 1, OpDurations{1, 2, 0, 0});
      INFO(name << " p=" << p << " m=" << m);
      CHECK(t.makespan == Approx(3.0 * (m + p - 1)));
      for (int s = 0; s < p; ++s) {
        CHECK(t.bubble_fraction(s) == Approx(double(p - 1) / (m + p - 1)));
        CHECK(t.bubble_overhead(s) == Approx(double(p - 1) / m));
      }
    }
}

TEST_CASE("seed figures: 4 stages x 16 micro-batches = 18.75 % overhead; 16 x 4 = 375 %", "[sched][seed]") {
  CHECK(run("1f1b", 4, 16, 1, {1, 2, 0, 0}).bubble_overhead(0) == Approx(0.1875));
  CHECK(run("1f1b", 16, 4, 1, {1, 2, 0, 0}).bubble_overhead(0) == Approx(3.75));
}

TEST_CASE("1F1B keeps p-s micro-batches in flight, GPipe keeps m", "[sched]") {
  ScheduleTiming a = run("1f1b", 4, 16, 1, {1, 2, 0, 0});
  ScheduleTiming g = run("gpipe", 4, 16, 1, {1, 2, 0, 0});
  for (int s = 0; s < 4; ++s) {
    CHECK(a.peak_in_flight[static_cast<size_t>(s)] == 4 - s);
    CHECK(g.peak_in_flight[static_cast<size_t>(s)] == 16);
  }
}

TEST_CASE("interleaved 1F1B: overhead (p-1)/(v·m)", "[sched]") {
  // Each chunk holds 1/v of a stage's layers: f = 1/v, b = 2/v per chunk; the fill/drain shrinks v-fold.
  for (int v : {2, 3, 4})
    for (auto [p, m] : {std::pair{4, 16}, std::pair{8, 8}, std::pair{4, 8}}) {
      ScheduleTiming t = run("interleaved", p, m, v, OpDurations{1.0 / v, 2.0 / v, 0, 0});
      INFO("p=" << p << " m=" << m << " v=" << v);
      CHECK(t.bubble_overhead(0) == Approx(double(p - 1) / (v * m)));
    }
  // v = 1 is plain 1F1B.
  CHECK(run("interleaved", 4, 16, 1, {1, 2, 0, 0}).bubble_overhead(0) == Approx(0.1875));
}

TEST_CASE("ZB-H1 leaves about a third of 1F1B's bubble when F, B and W take equal time", "[sched]") {
  // Qi et al. 2023: 1F1B bubble (p−1)(F+B+W); ZB-H1 (p−1)(F+B−W): a third when F = B = W.
  for (auto [p, m] : {std::pair{4, 16}, std::pair{8, 24}, std::pair{4, 8}}) {
    ScheduleTiming base = run("1f1b", p, m, 1, {1, 2, 0, 0});
    ScheduleTiming zb = run("zb-h1", p, m, 1, {1, 1, 1, 0});
    const double idle_base = base.makespan - base.busy[0];
    const double idle_zb = zb.makespan - zb.busy[0];
    INFO("p=" << p << " m=" << m << " 1f1b idle " << idle_base << " zb-h1 idle " << idle_zb);
    CHECK(idle_base == Approx(3.0 * (p - 1)));
    CHECK(idle_zb == Approx(1.0 * (p - 1)));
    // As 1F1B: at most p - s micro-batches await their B (a deferred W's chunk holds only M_W).
    for (int s = 0; s < p; ++s) CHECK(zb.peak_awaiting_b[static_cast<size_t>(s)] <= p - s);
  }
}

TEST_CASE("ZB-H1 idles Table 2's (p−1)(F+B−W) per stage", "[sched]") {
  // Qi et al. 2024 (arXiv 2401.10241) Table 2: ZB-H1 bubble (p − 1)(T_F + T_B − T_W); exact here for
  // uniform stages, free communication and m ≥ p, with B the input-gradient pass alone.
  for (OpDurations d : {OpDurations{1, 1, 1, 0}, OpDurations{1, 1.3, 0.7, 0}, OpDurations{1, 1.5, 0.5, 0},
                        OpDurations{1, 1.2, 1, 0}})
    for (auto [p, m] : {std::pair{4, 8}, std::pair{4, 16}, std::pair{8, 16}, std::pair{8, 32}}) {
      ScheduleTiming zb = run("zb-h1", p, m, 1, d);
      INFO("p=" << p << " m=" << m << " f=" << d.f << " b=" << d.b << " w=" << d.w);
      for (int s = 0; s < p; ++s)
        CHECK(zb.makespan - zb.busy[static_cast<size_t>(s)] == Approx((p - 1) * (d.f + d.b - d.w)));
    }
}

TEST_CASE("ZB-H2 trades memory for a smaller bubble than ZB-H1", "[sched]") {
  // Table 2: ZB-H2 (p − 1)(T_F + T_B − 2T_W), zero when F = B = W, because the paper also drops the
  // optimizer step's synchronisation (Sec. 4) and lets the stages end at different times. Here an
  // iteration ends when every stage is done, so the parallelogram's skew (p − 1)·F stays idle:
  // idle = (p − 1)·max(F, F + B − 2W) with enough micro-batches (m ≥ 2p): below ZB-H1's
  // (p − 1)(F + B − W) when B > W > 0, equal to it when B = W.
  for (OpDurations d : {OpDurations{1, 1, 1, 0}, OpDurations{1, 1.3, 0.7, 0}, OpDurations{1, 1.5, 0.5, 0},
                        OpDurations{1, 1.2, 1, 0}})
    for (auto [p, m] : {std::pair{4, 8}, std::pair{4, 16}, std::pair{8, 16}, std::pair{8, 32}}) {
      ScheduleTiming h1 = run("zb-h1", p, m, 1, d);
      ScheduleTiming h2 = run("zb-h2", p, m, 1, d);
      INFO("p=" << p << " m=" << m << " f=" << d.f << " b=" << d.b << " w=" << d.w);
      CHECK(h2.makespan <= h1.makespan);
      for (int s = 0; s < p; ++s)
        CHECK(h2.makespan - h2.busy[static_cast<size_t>(s)] == Approx((p - 1) * std::max(d.f, d.f + d.b - 2 * d.w)));
      CHECK(h2.peak_awaiting_b[0] == 2 * p - 1);
      CHECK(h1.peak_awaiting_b[0] == p);
    }
}

TEST_CASE("interleaved keeps p·v + p − 1 chunk activations on stage 0 (Korthikanti's 1 + (p−1)/(p·v))", "[sched]") {
  // Megatron's warm-up of (p−1)·2 + (v−1)·p forwards plus the steady-state one: in units of a
  // stage's activations that is p·(1 + (p−1)/(p·v)).
  for (auto [p, v] : {std::pair{8, 2}, std::pair{4, 3}, std::pair{4, 2}}) {
    ScheduleTiming t = run("interleaved", p, 4 * p, v, OpDurations{1.0 / v, 2.0 / v, 0, 0});
    CHECK(t.peak_in_flight[0] == p * v + p - 1);
  }
}
