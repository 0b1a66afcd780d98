#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "sim/net/max_min.hpp"

using namespace plansim;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

MaxMinFlow flow(std::vector<std::pair<uint32_t, double>> links, double cap = kInf) {
  return MaxMinFlow{std::move(links), cap};
}

// Checks max-min optimality directly: (1) feasibility: no link above capacity, no flow above its
// cap; (2) every flow is at its cap, or crosses a saturated link on which no other flow has a
// larger rate (its bottleneck). Together these characterise the max-min fair allocation.
void check_max_min(const std::vector<double>& cap, const std::vector<MaxMinFlow>& flows, const std::vector<double>& r) {
  REQUIRE(r.size() == flows.size());
  const double eps = 1e-9;
  std::vector<double> load(cap.size(), 0.0);
  for (size_t f = 0; f < flows.size(); ++f) {
    REQUIRE(r[f] >= 0.0);
    CHECK(r[f] <= flows[f].cap * (1 + eps));
    for (const auto& [l, k] : flows[f].links) load[l] += k * r[f];
  }
  for (size_t l = 0; l < cap.size(); ++l) CHECK(load[l] <= cap[l] * (1 + eps));
  for (size_t f = 0; f < flows.size(); ++f) {
    if (r[f] >= flows[f].cap * (1 - eps)) continue;
    bool bottlenecked = false;
    for (const auto& [l, k] : flows[f].links) {
      if (load[l] < cap[l] * (1 - eps)) continue;  // not saturated
      bool largest = true;
      for (size_t g = 0; g < flows.size() && largest; ++g) {
        if (g == f) continue;
        for (const auto& [l2, k2] : flows[g].links)
          if (l2 == l && r[g] > r[f] * (1 + eps)) largest = false;
      }
      if (largest) bottlenecked = true;
    }
    INFO("flow " << f << " rate " << r[f] << " has no bottleneck");
    CHECK(bottlenecked);
  }
}

// A slow, obviously-correct progressive filling: raise all unfrozen flows by the largest step that
// keeps every link and cap feasible, freeze flows on saturated links or at their cap, repeat.
std::vector<double> reference_rates(const std::vector<double>& cap, const std::vector<MaxMinFlow>& flows) {
  std::vector<double> r(flows.size(), 0.0);
  std::vector<bool> frozen(flows.size(), false);
  for (size_t f = 0; f < flows.size(); ++f)
    if (flows[f].links.empty()) {
      r[f] = flows[f].cap;
      frozen[f] = true;
    }
  for (;;) {
    double step = kInf;
    for (size_t l = 0; l < cap.size(); ++l) {
      double used = 0, w = 0;
      for (size_t f = 0; f < flows.size(); ++f)
        for (const auto& [l2, k] : flows[f].links)
          if (l2 == l) {
            used += k * r[f];
            if (!frozen[f]) w += k;
          }
      if (w > 0) step = std::min(step, (cap[l] - used) / w);
    }
    for (size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) step = std::min(step, flows[f].cap - r[f]);
    if (step == kInf) break;
    for (size_t f = 0; f < flows.size(); ++f)
      if (!frozen[f]) r[f] += step;
    bool any = false;
    for (size_t f = 0; f < flows.size(); ++f) {
      if (frozen[f]) continue;
      bool freeze = r[f] >= flows[f].cap * (1 - 1e-12);
      for (const auto& [l, k] : flows[f].links) {
        double used = 0;
        for (size_t g = 0; g < flows.size(); ++g)
          for (const auto& [l2, k2] : flows[g].links)
            if (l2 == l) used += k2 * r[g];
        if (used >= cap[l] * (1 - 1e-12)) freeze = true;
      }
      if (freeze) {
        frozen[f] = true;
        any = true;
      }
    }
    if (!any) break;
  }
  return r;
}

}  // namespace

TEST_CASE("max-min: one flow gets its tightest link", "[net][max_min]") {
  std::vector<double> cap{10, 4, 7};
  std::vector<MaxMinFlow> flows{flow({{0, 1}, {1, 1}, {2, 1}})};
  auto r = max_min_rates(cap, flows);
  CHECK(r[0] == Approx(4));
  check_max_min(cap, flows, r);
}

TEST_CASE("max-min: two flows on one bottleneck get half each", "[net][max_min]") {
  std::vector<double> cap{10, 100, 100};
  std::vector<MaxMinFlow> flows{flow({{0, 1}, {1, 1}}), flow({{0, 1}, {2, 1}})};
  auto r = max_min_rates(cap, flows);
  CHECK(r[0] == Approx(5));
  CHECK(r[1] == Approx(5));
}

TEST_CASE("max-min: parking lot gives every flow half a link", "[net][max_min]") {
  // A long flow crosses links 0..n-1; short flow i crosses link i only. Each link carries the long
  // flow and one short flow, so all rates equal capacity/2.
  for (uint32_t n : {1u, 2u, 5u, 50u}) {
    std::vector<double> cap(n, 1.0);
    std::vector<MaxMinFlow> flows;
    MaxMinFlow longf;
    for (uint32_t l = 0; l < n; ++l) longf.links.emplace_back(l, 1);
    flows.push_back(longf);
    for (uint32_t l = 0; l < n; ++l) flows.push_back(flow({{l, 1}}));
    auto r = max_min_rates(cap, flows);
    for (double x : r) CHECK(x == Approx(0.5));
  }
}

TEST_CASE("max-min: a cap frees bandwidth for the others", "[net][max_min]") {
  // Three flows on a link of 9: one capped at 1, the other two split the remaining 8.
  std::vector<double> cap{9};
  std::vector<MaxMinFlow> flows{flow({{0, 1}}, 1.0), flow({{0, 1}}), flow({{0, 1}})};
  auto r = max_min_rates(cap, flows);
  CHECK(r[0] == Approx(1));
  CHECK(r[1] == Approx(4));
  CHECK(r[2] == Approx(4));
  // A cap above the fair share does not bind.
  flows[0].cap = 5.0;
  r = max_min_rates(cap, flows);
  for (double x : r) CHECK(x == Approx(3));
  // A flow over no link runs at its cap (infinity when uncapped).
  std::vector<MaxMinFlow> lone{flow({}, 2.5), flow({})};
  r = max_min_rates(cap, lone);
  CHECK(r[0] == 2.5);
  CHECK(r[1] == kInf);
}

TEST_CASE("max-min: multiplicity consumes k times the rate", "[net][max_min]") {
  // A ring channel crossing link 0 twice and a plain flow on link 0: 2r + s = 12 with r = s -> 4 each.
  std::vector<double> cap{12, 100};
  std::vector<MaxMinFlow> flows{flow({{0, 2}, {1, 1}}), flow({{0, 1}})};
  auto r = max_min_rates(cap, flows);
  CHECK(r[0] == Approx(4));
  CHECK(r[1] == Approx(4));
  // Alone, the channel gets capacity / multiplicity.
  std::vector<MaxMinFlow> alone{flow({{0, 3}})};
  CHECK(max_min_rates(cap, alone)[0] == Approx(4));
  // Weighted entries stand for w identical flows.
  std::vector<uint32_t> begin{0, 1, 2};
  std::vector<uint32_t> link{0, 0};
  std::vector<double> mult{1, 1};
  std::vector<double> caps{kInf, kInf};
  std::vector<double> weight{3, 1};
  std::vector<double> rates(2);
  MaxMinSolver solver;
  solver.solve(MaxMinInstance{cap, begin, link, mult, caps, weight}, rates);
  CHECK(rates[0] == Approx(3));  // 3 flows at 3 + 1 flow at 3 = 12
  CHECK(rates[1] == Approx(3));
}

TEST_CASE("max-min: unequal bottlenecks fill in order", "[net][max_min]") {
  // Flow a on link 0 (cap 2) and link 1 (cap 10); flow b on link 1 only: a = 2, b = 8.
  std::vector<double> cap{2, 10};
  std::vector<MaxMinFlow> flows{flow({{0, 1}, {1, 1}}), flow({{1, 1}})};
  auto r = max_min_rates(cap, flows);
  CHECK(r[0] == Approx(2));
  CHECK(r[1] == Approx(8));
  check_max_min(cap, flows, r);
}

TEST_CASE("max-min: random instances are max-min fair and match the reference", "[net][max_min]") {
  std::mt19937_64 rng(12345);
  MaxMinSolver solver;  // reused across instances, as the flow network does
  for (int inst = 0; inst < 400; ++inst) {
    const auto nl = static_cast<uint32_t>(1 + rng() % 12);
    const size_t nf = 1 + rng() % 25;
    std::vector<double> cap(nl);
    for (double& c : cap) c = std::uniform_real_distribution<double>(0.5, 100.0)(rng);
    std::vector<MaxMinFlow> flows(nf);
    for (MaxMinFlow& f : flows) {
      const size_t hops = rng() % 4;  // 0..3 distinct links (0: crosses nothing)
      std::vector<uint32_t> ls;
      while (ls.size() < hops && ls.size() < nl) {
        const auto l = static_cast<uint32_t>(rng() % nl);
        if (std::find(ls.begin(), ls.end(), l) == ls.end()) ls.push_back(l);
      }
      for (uint32_t l : ls) f.links.emplace_back(l, static_cast<double>(1 + rng() % 3));
      if (rng() % 3 == 0 || f.links.empty()) f.cap = std::uniform_real_distribution<double>(0.1, 60.0)(rng);
    }
    INFO("instance " << inst);
    auto r = max_min_rates(cap, flows);
    check_max_min(cap, flows, r);
    auto ref = reference_rates(cap, flows);
    for (size_t f = 0; f < nf; ++f) CHECK(r[f] == Approx(ref[f]).epsilon(1e-9));
    // The reusable solver gives the same bits as the one-shot form.
    std::vector<uint32_t> begin{0}, link;
    std::vector<double> mult, caps;
    for (const MaxMinFlow& f : flows) {
      for (const auto& [l, k] : f.links) {
        link.push_back(l);
        mult.push_back(k);
      }
      begin.push_back(static_cast<uint32_t>(link.size()));
      caps.push_back(f.cap);
    }
    std::vector<double> again(nf);
    std::vector<uint32_t> bound(nf);
    solver.solve(MaxMinInstance{cap, begin, link, mult, caps, {}}, again, bound);
    CHECK(again == r);
    // Each reported bottleneck is a link of the flow that is saturated and on which no flow is
    // faster, or the flow's own cap (the flow network relies on this to re-solve locally).
    std::vector<double> load(nl, 0.0), fastest(nl, 0.0);
    for (size_t f = 0; f < nf; ++f)
      for (const auto& [l, k] : flows[f].links) {
        load[l] += k * r[f];
        fastest[l] = std::max(fastest[l], r[f]);
      }
    for (size_t f = 0; f < nf; ++f) {
      if (bound[f] == MaxMinSolver::kCapBound) {
        CHECK(r[f] == flows[f].cap);
        continue;
      }
      const uint32_t b = bound[f];
      CHECK(std::any_of(flows[f].links.begin(), flows[f].links.end(), [b](const auto& e) { return e.first == b; }));
      CHECK(load[b] == Approx(cap[b]).epsilon(1e-9));
      CHECK(r[f] == Approx(fastest[b]).epsilon(1e-12));
    }
  }
}

TEST_CASE("max-min: ring-like flows over hundreds of links match the reference", "[net][max_min]") {
  // Few flows, each crossing many links (as a ring channel does): freezing one touches most of the
  // heap, which the solver then rebuilds in bulk instead of sifting link by link. Same rates.
  std::mt19937_64 rng(777);
  for (int inst = 0; inst < 20; ++inst) {
    const uint32_t nl = 100 + static_cast<uint32_t>(rng() % 200);
    std::vector<double> cap(nl);
    for (double& c : cap) c = std::uniform_real_distribution<double>(1.0, 100.0)(rng);
    std::vector<MaxMinFlow> flows(2 + rng() % 10);
    for (MaxMinFlow& f : flows) {
      const uint32_t first = static_cast<uint32_t>(rng() % nl), len = 20 + static_cast<uint32_t>(rng() % (nl - 20));
      for (uint32_t i = 0; i < len; ++i) f.links.emplace_back((first + i) % nl, static_cast<double>(1 + rng() % 2));
      if (rng() % 4 == 0) f.cap = std::uniform_real_distribution<double>(0.5, 30.0)(rng);
    }
    INFO("instance " << inst);
    const auto r = max_min_rates(cap, flows);
    check_max_min(cap, flows, r);
    const auto ref = reference_rates(cap, flows);
    for (size_t f = 0; f < flows.size(); ++f) CHECK(r[f] == Approx(ref[f]).epsilon(1e-9));
  }
}

TEST_CASE("max-min: filling components one by one gives the bits of one fill over everything", "[net][max_min]") {
  // Many small independent pieces (lone flows, pairs, chains) beside a few long shared flows, with
  // caps, weights and repeated links: the split solve must agree bit for bit, bottlenecks included,
  // with the single heap over every link (set_split(false)), and both with the reference.
  std::mt19937_64 rng(4242);
  MaxMinSolver split, whole;
  whole.set_split(false);
  size_t lone = 0, shared = 0;
  for (int inst = 0; inst < 300; ++inst) {
    const auto nl = static_cast<uint32_t>(4 + rng() % 60);
    std::vector<double> cap(nl);
    for (double& c : cap) c = std::uniform_real_distribution<double>(0.5, 100.0)(rng);
    if (inst % 3 == 0) std::fill(cap.begin(), cap.end(), 10.0);  // equal levels: ties broken by link index
    std::vector<uint32_t> begin{0}, link;
    std::vector<double> mult, caps, weight;
    const size_t nf = 1 + rng() % 40;
    for (size_t f = 0; f < nf; ++f) {
      // Mostly short routes inside a narrow window of links (independent pieces), sometimes a long one.
      const bool long_route = rng() % 10 == 0;
      const auto hops = static_cast<uint32_t>(long_route ? nl / 2 : rng() % 4);
      const auto first = static_cast<uint32_t>(rng() % nl);
      for (uint32_t i = 0; i < hops; ++i) {
        link.push_back((first + (long_route ? i : static_cast<uint32_t>(rng() % 3))) % nl);  // repeats allowed
        mult.push_back(static_cast<double>(1 + rng() % 3));
      }
      begin.push_back(static_cast<uint32_t>(link.size()));
      caps.push_back(rng() % 4 == 0 || hops == 0 ? std::uniform_real_distribution<double>(0.1, 60.0)(rng) : kInf);
      weight.push_back(static_cast<double>(1 + rng() % 3));
    }
    const MaxMinInstance in{cap, begin, link, mult, caps, weight};
    std::vector<double> r1(nf), r2(nf);
    std::vector<uint32_t> b1(nf), b2(nf);
    split.solve(in, r1, b1);
    whole.solve(in, r2, b2);
    INFO("instance " << inst);
    CHECK(r1 == r2);
    CHECK(b1 == b2);
    // Count what the instances exercised: flows alone in their component and flows sharing one.
    std::vector<int> users(nl, 0);
    for (size_t f = 0; f < nf; ++f)
      for (uint32_t e = begin[f]; e < begin[f + 1]; ++e)
        if (std::find(link.begin() + begin[f], link.begin() + e, link[e]) == link.begin() + e) ++users[link[e]];
    for (size_t f = 0; f < nf; ++f) {
      if (begin[f] == begin[f + 1]) continue;
      bool alone = true;
      for (uint32_t e = begin[f]; e < begin[f + 1]; ++e) alone = alone && users[link[e]] == 1;
      (alone ? lone : shared) += 1;
    }
    // Against the reference, with the weights unfolded into copies and repeats summed.
    std::vector<MaxMinFlow> flows;
    std::vector<size_t> first_copy;
    for (size_t f = 0; f < nf; ++f) {
      MaxMinFlow mf;
      for (uint32_t e = begin[f]; e < begin[f + 1]; ++e) {
        auto it = std::find_if(mf.links.begin(), mf.links.end(), [&](const auto& p) { return p.first == link[e]; });
        if (it == mf.links.end()) mf.links.emplace_back(link[e], mult[e]);
        else it->second += mult[e];
      }
      mf.cap = caps[f];
      first_copy.push_back(flows.size());
      for (int k = 0; k < static_cast<int>(weight[f]); ++k) flows.push_back(mf);
    }
    const auto ref = reference_rates(cap, flows);
    for (size_t f = 0; f < nf; ++f) CHECK(r1[f] == Approx(ref[first_copy[f]]).epsilon(1e-9));
  }
  CHECK(lone > 300);
  CHECK(shared > 1000);
}
