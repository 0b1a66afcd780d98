// What a stage's order keeps alive (sched/holding.hpp): the activation peak is the peak of the
// weighted sum (chunks awaiting B)·M_B + (chunks awaiting W)·M_W, and the zero-bubble schedules hold
// what Qi et al. 2024 (arXiv 2401.10241, Sec. 2.3) state: worker i (1-based) of ZB-H1 holds
// (p − i + 1)·M_B + (i − 1)·M_W, of ZB-H2 (2p − 2i + 1)·M_B + (2i − 2)·M_W.
#include <catch2/catch.hpp>

#include "sim/sched/holding.hpp"
#include "sim/sched/registry.hpp"
#include "sim/sched/timeline.hpp"

using namespace plansim;

namespace {
std::vector<StageHolding> held(const std::string& name, int p, int m, int v = 1) {
  auto s = make_schedule(name);
  const ScheduleShape sh{p, m, v};
  const StageOrders o = s->build(sh);
  check_orders(o, s->layout(sh), s->splits_backward());
  return stage_holdings(o, s->splits_backward());
}
}  // namespace

TEST_CASE("holding: the peak of the weighted sum, not the sum of the two peaks", "[sched]") {
  // One stage, F0 F1 B0 B1 W0 W1: states (1,0) (2,0) (1,1) (0,2) (0,1) (0,0). Two chunks await B at
  // once and two await W at once, but never all four: with M_B = 1, M_W = 0.5 the peak is
  // max(2, 1 + 0.5, 1) = 2, not 2 + 2·0.5 = 3. With M_W = 1.5 (> M_B, as under full recompute) it is
  // the all-W state, 3.
  const StageOrders o = {{{Phase::F, 0}, {Phase::F, 1}, {Phase::B, 0}, {Phase::B, 1}, {Phase::W, 0}, {Phase::W, 1}}};
  const StageHolding h = stage_holdings(o, true)[0];
  CHECK(h.frontier == std::vector<HeldChunks>{{2, 0}, {1, 1}, {0, 2}});
  CHECK(h.peak(1, 0.5) == 2);
  CHECK(h.peak(1, 1.5) == 3);
  CHECK(h.peak_state(1, 1.5) == HeldChunks{0, 2});
  CHECK(h.peak_chunks() == 2);
  CHECK(h.peak_awaiting_b() == 2);
  // Without the split the same F/B order frees everything at B (W's would not exist): only (2, 0).
  const StageOrders fb = {{{Phase::F, 0}, {Phase::F, 1}, {Phase::B, 0}, {Phase::B, 1}}};
  CHECK(stage_holdings(fb, false)[0].frontier == std::vector<HeldChunks>{{2, 0}});
  // A B `with_weight` frees everything too.
  const StageOrders bw = {{{Phase::F, 0}, {Phase::F, 1}, {Phase::B, 0, 0, true}, {Phase::B, 1, 0, true}}};
  CHECK(stage_holdings(bw, true)[0].frontier == std::vector<HeldChunks>{{2, 0}});
}

TEST_CASE("holding: 1F1B, GPipe and interleaved keep full activations only", "[sched]") {
  for (int p : {2, 4, 8}) {
    const auto one = held("1f1b", p, 4 * p), gp = held("gpipe", p, 4 * p), il = held("interleaved", p, 4 * p, 2);
    for (int s = 0; s < p; ++s) {
      const auto su = static_cast<size_t>(s);
      CHECK(one[su].frontier == std::vector<HeldChunks>{{p - s, 0}});
      CHECK(gp[su].frontier == std::vector<HeldChunks>{{4 * p, 0}});
      CHECK(il[su].frontier.size() == 1);
      CHECK(il[su].frontier[0].awaiting_w == 0);
    }
  }
}

TEST_CASE("holding: ZB-H1 stage s peaks at (p − s)·M_B + s·M_W (Qi et al. Sec. 2.3), p·M_B at most", "[sched]") {
  for (int p : {2, 4, 8, 16})
    for (int m : {p, 2 * p, 4 * p + 3}) {
      const auto h = held("zb-h1", p, m);
      for (int s = 0; s < p; ++s) {
        const StageHolding& st = h[static_cast<size_t>(s)];
        INFO("p=" << p << " m=" << m << " stage " << s);
        // M_W = 32/34 of M_B: a GPT layer under selective recompute (model/memory.hpp).
        for (double mw : {0.0, 32.0 / 34, 1.0}) {
          CHECK(st.peak(1, mw) == Approx((p - s) + s * mw));
          CHECK(st.peak(1, mw) <= p);
        }
        CHECK(st.peak_awaiting_b() == p - s);
        CHECK(st.peak_chunks() == p);  // 1F1B's p on stage 0, p on every stage here
      }
    }
}

TEST_CASE("holding: ZB-H2 stage s peaks at (2p − 2s − 1)·M_B + 2s·M_W, (2p − 1)·M_B at most", "[sched]") {
  for (int p : {2, 4, 8, 16})
    for (int m : {2 * p, 4 * p + 3}) {
      const auto h = held("zb-h2", p, m);
      for (int s = 0; s < p; ++s) {
        const StageHolding& st = h[static_cast<size_t>(s)];
        INFO("p=" << p << " m=" << m << " stage " << s);
        for (double mw : {0.0, 32.0 / 34, 1.0}) {
          CHECK(st.peak(1, mw) == Approx((2 * p - 2 * s - 1) + 2 * s * mw));
          CHECK(st.peak(1, mw) <= 2 * p - 1);
        }
        CHECK(st.peak_awaiting_b() == 2 * (p - s) - 1);
      }
    }
}

TEST_CASE("holding: DualPipe's PP + 1 chunks all await B at its peak", "[sched][dualpipe]") {
  // DeepSeek-V3 Table 2 counts PP + 1 chunk activations; the order reaches them before any of those
  // chunks' B, so splitting off W does not lower the peak while M_W ≤ M_B.
  for (int p : {4, 8}) {
    const auto h = held("dualpipe", p, 2 * p + 2);
    for (int s = 0; s < p; ++s) {
      const StageHolding& st = h[static_cast<size_t>(s)];
      INFO("p=" << p << " stage " << s);
      CHECK(st.peak_chunks() == p + 1);
      CHECK(st.frontier.front() == HeldChunks{p + 1, 0});
      for (double mw : {0.0, 32.0 / 34, 1.0}) CHECK(st.peak(1, mw) == p + 1);
    }
  }
}
