// FlowNetwork::start_batch against its definition: the same flows started one by one with
// start_prepared and a callback that counts down. Random workloads of "calls" (batches of 1..24
// flows: point-to-point routes and ring channels, latencies from a small set including zero, some
// zero-byte flows, some capped) on a small fat tree, calls started at random times or chained from
// another call's completion: every call's completion time and the order the callbacks ran, every
// flow's rate at probe times, every link's counters and the end time must be bit-identical.
#include <catch2/catch.hpp>

#include <functional>
#include <random>
#include <vector>

#include "sim/net/flow_network.hpp"
#include "tests/support/fat_tree.hpp"

using namespace plansim;

namespace {

struct CallSpec {
  Time start;
  std::vector<std::vector<LinkId>> routes;
  std::vector<double> bytes, cap;
  std::vector<Time> latency;
  int chained = -1;  // a call started from this one's completion, or -1
};

std::vector<CallSpec> random_calls(const Topology& topo, uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed);
  const Time latencies[] = {Time::zero(), Time::ns(500), Time::ns(1700), Time::us(3)};
  std::vector<CallSpec> calls(n);
  for (CallSpec& c : calls) {
    c.start = Time::ps(static_cast<int64_t>(rng() % 3'000'000'000ULL));
    const size_t k = 1 + rng() % 24;
    const bool same_bytes = rng() % 2 == 0;  // an all-to-all: every flow moves the same bytes
    const double common = std::uniform_real_distribution<double>(1e4, 3e7)(rng);
    for (size_t i = 0; i < k; ++i) {
      std::vector<LinkId> links;
      const size_t hops = rng() % 5 == 0 ? 3 : 1;  // a ring channel over 3 hops, or point to point
      for (size_t h = 0; h < hops; ++h) {
        auto r = topo.route(GpuId::from(rng() % 16), GpuId::from(rng() % 16));
        links.insert(links.end(), r.begin(), r.end());
      }
      c.routes.push_back(links);
      c.bytes.push_back(rng() % 25 == 0 ? 0.0 : same_bytes ? common : std::uniform_real_distribution<double>(1e3, 5e7)(rng));
      c.cap.push_back(rng() % 6 == 0 ? std::uniform_real_distribution<double>(1e9, 40e9)(rng) : FlowNetwork::kNoCap);
      c.latency.push_back(latencies[rng() % 4]);
    }
  }
  for (size_t i = 1; i < n; i += 5) calls[i - 1].chained = static_cast<int>(i);
  return calls;
}

struct Outcome {
  std::vector<Time> done;                 // per call
  std::vector<size_t> order;              // calls in the order their callbacks ran
  std::vector<std::vector<double>> rates;  // per probe: every flow's rate (by id)
  std::vector<double> link_bytes, link_busy;
  Time end;
  uint64_t events = 0;
};

Outcome run_calls(const Topology& topo, const std::vector<CallSpec>& calls, bool batched) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  Outcome out;
  out.done.assign(calls.size(), Time::infinite());
  std::vector<size_t> pending(calls.size(), 0);
  std::vector<bool> is_chained(calls.size(), false);
  for (const CallSpec& c : calls)
    if (c.chained >= 0) is_chained[static_cast<size_t>(c.chained)] = true;
  std::function<void(size_t)> start = [&](size_t i) {
    const CallSpec& c = calls[i];
    auto done = [&, i] {
      out.done[i] = sim.now();
      out.order.push_back(i);
      if (calls[i].chained >= 0) start(static_cast<size_t>(calls[i].chained));
    };
    if (batched) {
      std::vector<FlowNetwork::BatchFlow> flows;
      for (size_t k = 0; k < c.routes.size(); ++k)
        flows.push_back({net.prepare_route(c.routes[k]), Bytes(c.bytes[k]), c.latency[k], Rate(c.cap[k])});
      net.start_batch(flows, done);
      return;
    }
    pending[i] = c.routes.size();
    for (size_t k = 0; k < c.routes.size(); ++k)
      net.start_prepared(net.prepare_route(c.routes[k]), Bytes(c.bytes[k]), c.latency[k],
                         [&, i, done] {
                           if (--pending[i] == 0) done();
                         },
                         Rate(c.cap[k]));
  };
  for (size_t i = 0; i < calls.size(); ++i)
    if (!is_chained[i]) sim.at(calls[i].start, [&, i] { start(i); });
  for (int64_t t = 1; t <= 40; ++t) {
    sim.run_until(Time::ps(100'000'000 * t));
    std::vector<double> r;
    for (uint64_t id = 0; id < net.flows_started(); ++id) r.push_back(net.flow_rate(FlowId::from(id)).value());
    out.rates.push_back(r);
  }
  sim.run();
  out.end = sim.now();
  out.events = sim.events_processed();
  for (size_t l = 0; l < topo.links().size(); ++l) {
    const LinkStats s = net.link_stats(LinkId::from(l));
    out.link_bytes.push_back(s.bytes.value());
    out.link_busy.push_back(s.busy.seconds());
  }
  return out;
}

}  // namespace

TEST_CASE("flow batch: bit-identical to its flows started one by one", "[net][flow][batch]") {
  const Topology topo = testing::small_fat_tree();
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const auto calls = random_calls(topo, seed, 60);
    const Outcome plain = run_calls(topo, calls, false);
    const Outcome batch = run_calls(topo, calls, true);
    INFO("seed " << seed);
    for (size_t i = 0; i < calls.size(); ++i) REQUIRE(plain.done[i] != Time::infinite());
    CHECK(batch.done == plain.done);
    CHECK(batch.order == plain.order);
    CHECK(batch.rates == plain.rates);
    CHECK(batch.link_bytes == plain.link_bytes);
    CHECK(batch.link_busy == plain.link_busy);
    CHECK(batch.end == plain.end);
    CHECK(batch.events < plain.events);  // what it is for: fewer events
  }
}

TEST_CASE("flow batch: one callback, after the last flow; ids follow the first", "[net][flow][batch]") {
  const Topology topo = testing::small_fat_tree();
  Simulation sim;
  FlowNetwork net(sim, topo);
  const auto r01 = topo.route(GpuId(0), GpuId(1));  // same leaf: 50 GB/s up and down
  const auto r23 = topo.route(GpuId(2), GpuId(3));
  const std::vector<FlowNetwork::BatchFlow> flows{
      {net.prepare_route(r01), GB(1), Time::us(1)},   // alone on its links: 1 us + 20 ms
      {net.prepare_route(r23), GB(2), Time::us(2)},   // 2 us + 40 ms: the last
      {net.prepare_route(r01), Bytes(0), Time::zero()},
  };
  int calls = 0;
  Time when;
  const FlowId first = net.start_batch(flows, [&] {
    ++calls;
    when = sim.now();
  });
  sim.run_until(Time::ms(10));
  CHECK(net.flow_rate(first).value() == Approx(50e9));
  CHECK(net.flow_rate(FlowId::from(first.index() + 1)).value() == Approx(50e9));
  sim.run();
  CHECK(calls == 1);
  CHECK(when.seconds() == Approx(2e-6 + 0.04).epsilon(1e-9));
  CHECK(net.active_flows() == 0);
}
