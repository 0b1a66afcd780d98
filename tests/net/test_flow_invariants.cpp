// Invariants of the flow network on random workloads over a small fat tree:
// every flow completes, no earlier than its bytes allow; link byte counters equal what the flows
// requested; no link above capacity; the incrementally maintained rates equal a from-scratch global
// max-min solve at probe times; time is monotone; two runs agree bit for bit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "sim/net/flow_network.hpp"
#include "sim/net/max_min.hpp"
#include "tests/support/fat_tree.hpp"

using namespace plansim;

namespace {

struct FlowSpec {
  Time start;
  std::vector<LinkId> links;
  double bytes = 0;
  double cap = FlowNetwork::kNoCap;
  int chained = -1;  // index of a flow started from this one's on_done (latency 0), or -1
};

struct Probe {
  Time t;
  std::vector<double> rate;   // per flow index, as reported (0 if not started yet)
  std::vector<double> load;   // per link
};

struct Outcome {
  std::vector<Time> done;
  std::vector<Time> activated;
  std::vector<Time> order;  // completion times in the order on_done ran
  std::vector<Probe> probes;
  std::vector<LinkStats> stats;
  Time end;
};

std::vector<FlowSpec> random_workload(const Topology& topo, uint64_t seed, size_t n, int64_t window_ps = 2'000'000'000) {
  std::mt19937_64 rng(seed);
  std::vector<FlowSpec> specs(n);
  for (size_t i = 0; i < n; ++i) {
    FlowSpec& s = specs[i];
    s.start = Time::ps(static_cast<int64_t>(rng() % static_cast<uint64_t>(window_ps)));  // default: within 2 ms
    const auto kind = rng() % 10;
    if (kind < 6) {  // point to point
      const auto a = GpuId::from(rng() % 16), b = GpuId::from(rng() % 16);
      auto r = topo.route(a, b);
      s.links.assign(r.begin(), r.end());
    } else {  // a ring channel over 3..6 GPUs: every hop's route, as one flow with multiplicity
      const size_t m = 3 + rng() % 4;
      std::vector<size_t> members;
      while (members.size() < m) {
        const size_t g = rng() % 16;
        if (std::find(members.begin(), members.end(), g) == members.end()) members.push_back(g);
      }
      for (size_t j = 0; j < m; ++j) {
        auto r = topo.route(GpuId::from(members[j]), GpuId::from(members[(j + 1) % m]));
        s.links.insert(s.links.end(), r.begin(), r.end());
      }
    }
    s.bytes = rng() % 20 == 0 ? 0.0 : std::uniform_real_distribution<double>(1e3, 5e7)(rng);
    if (rng() % 5 == 0) s.cap = std::uniform_real_distribution<double>(1e9, 40e9)(rng);
  }
  // Some flows are started by another's completion instead of at a fixed time.
  for (size_t i = 1; i < n; i += 7) specs[i - 1].chained = static_cast<int>(i);
  return specs;
}

Outcome run_workload(const Topology& topo, const std::vector<FlowSpec>& specs, uint64_t probe_seed, int local_rounds = 32) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  net.set_local_resolve_rounds(local_rounds);
  const size_t n = specs.size();
  Outcome out;
  out.done.assign(n, Time::infinite());
  out.activated.assign(n, Time::infinite());
  std::vector<FlowId> ids(n);
  std::vector<bool> started(n, false);
  std::vector<bool> is_chained(n, false);
  for (const FlowSpec& s : specs)
    if (s.chained >= 0) is_chained[static_cast<size_t>(s.chained)] = true;

  std::function<void(size_t)> launch = [&](size_t i) {
    const FlowSpec& s = specs[i];
    const Time lat = is_chained[i] ? Time::zero() : net.route_latency(s.links);
    out.activated[i] = sim.now() + lat;
    started[i] = true;
    ids[i] = net.start(s.links, Bytes(s.bytes), lat, [&, i] {
      out.done[i] = sim.now();
      CHECK((out.order.empty() || out.order.back() <= sim.now()));
      out.order.push_back(sim.now());
      if (specs[i].chained >= 0) launch(static_cast<size_t>(specs[i].chained));
    }, Rate(s.cap));
  };
  for (size_t i = 0; i < n; ++i)
    if (!is_chained[i]) sim.at(specs[i].start, [&launch, i] { launch(i); });

  std::mt19937_64 rng(probe_seed);
  for (int p = 0; p < 150; ++p) {
    sim.at(Time::ps(static_cast<int64_t>(rng() % 4'000'000'000)), [&] {
      Probe pr{sim.now(), std::vector<double>(n, 0.0), {}};
      for (size_t i = 0; i < n; ++i)
        if (started[i]) pr.rate[i] = net.flow_rate(ids[i]).value();
      for (const Link& l : topo.links()) pr.load.push_back(net.link_load(l.id).value());
      out.probes.push_back(std::move(pr));
    });
  }
  Time last = Time::zero();
  while (sim.pending() > 0) {  // time never goes backwards
    sim.run_until(sim.now() + Time::us(50));
    CHECK(sim.now() >= last);
    last = sim.now();
  }
  for (const Link& l : topo.links()) out.stats.push_back(net.link_stats(l.id));
  out.end = sim.now();
  CHECK(net.active_flows() == 0);
  return out;
}

}  // namespace

namespace {

// Every flow completes no earlier than its bytes allow, byte counters match, loads stay within
// capacity, rates equal a from-scratch global max-min solve at probe times, runs are deterministic.
void check_workload(const Topology& topo, uint64_t seed, size_t n, int64_t window_ps, int local_rounds) {
  const size_t nl = topo.links().size();
  std::vector<double> capacity;
  for (const Link& l : topo.links()) capacity.push_back(l.bandwidth.value());
  {
    INFO("seed " << seed << ", " << n << " flows, local rounds " << local_rounds);
    const auto specs = random_workload(topo, seed, n, window_ps);
    const Outcome out = run_workload(topo, specs, seed * 977, local_rounds);

    // Every flow completed, no earlier than latency + bytes at its best possible rate.
    std::vector<double> expect_bytes(nl, 0.0);
    for (size_t i = 0; i < specs.size(); ++i) {
      REQUIRE_FALSE(out.done[i].is_infinite());
      double best = specs[i].cap;
      std::map<uint32_t, int> mult;
      for (LinkId l : specs[i].links) ++mult[l.value];
      for (auto [l, k] : mult) {
        best = std::min(best, capacity[l] / k);
        expect_bytes[l] += specs[i].bytes * k;
      }
      const double min_s = specs[i].links.empty() && specs[i].cap == FlowNetwork::kNoCap ? 0.0 : specs[i].bytes / best;
      CHECK(out.done[i] >= out.activated[i] + Time::from_seconds(min_s) - Time::ps(1));
    }
    // Byte counters: what crossed each link = what the flows asked for, counting multiplicity.
    for (size_t l = 0; l < nl; ++l) {
      CHECK(out.stats[l].bytes.value() == Approx(expect_bytes[l]).epsilon(1e-12));
      CHECK(out.stats[l].busy <= out.end);
      // Busy time is at least the time needed to carry those bytes at full capacity.
      CHECK(out.stats[l].busy.seconds() >= expect_bytes[l] / capacity[l] * (1 - 1e-9) - 1e-12);
    }
    // Probes: loads within capacity; rates equal a global max-min solve of the flows then moving.
    size_t checked = 0;
    for (const Probe& pr : out.probes) {
      for (size_t l = 0; l < nl; ++l) CHECK(pr.load[l] <= capacity[l] * (1 + 1e-9));
      bool boundary = false;  // skip probes that coincide with a flow's activation or completion
      std::vector<size_t> moving;
      std::vector<MaxMinFlow> flows;
      for (size_t i = 0; i < specs.size(); ++i) {
        if (out.activated[i] == pr.t || out.done[i] == pr.t) boundary = true;
        if (out.activated[i] < pr.t && pr.t < out.done[i]) {
          moving.push_back(i);
          MaxMinFlow f;
          std::map<uint32_t, int> mult;
          for (LinkId l : specs[i].links) ++mult[l.value];
          for (auto [l, k] : mult) f.links.emplace_back(l, k);
          f.cap = specs[i].cap;
          flows.push_back(std::move(f));
        } else {
          CHECK(pr.rate[i] == 0.0);
        }
      }
      if (boundary) continue;
      ++checked;
      const auto ref = max_min_rates(capacity, flows);
      for (size_t j = 0; j < moving.size(); ++j) CHECK(pr.rate[moving[j]] == Approx(ref[j]).epsilon(1e-9));
    }
    CHECK(checked > 100);

    // Determinism: a second run gives the same completion times, bit for bit.
    const Outcome again = run_workload(topo, specs, seed * 977, local_rounds);
    CHECK(again.done == out.done);
  }
}

}  // namespace

TEST_CASE("flow network invariants on random workloads", "[net][flow][invariants]") {
  const Topology topo = testing::small_fat_tree();
  for (uint64_t seed : {1u, 2u, 3u, 4u, 5u}) check_workload(topo, seed, 300, 2'000'000'000, 32);
}

TEST_CASE("flow network invariants on dense workloads, local and whole-component re-solves", "[net][flow][invariants]") {
  // 400 flows started within 0.4 ms: many overlap, so local re-solves grow, some past their round
  // limit (fallback), and rounds = 1 forces the fallback often; rounds = 0 is the plain method.
  const Topology topo = testing::small_fat_tree();
  for (uint64_t seed : {11u, 12u, 13u})
    for (int rounds : {32, 1, 0}) check_workload(topo, seed, 400, 400'000'000, rounds);
}
