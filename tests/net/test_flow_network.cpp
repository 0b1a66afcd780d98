// Closed-form tests of the flow network, each with its derivation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/net/flow_network.hpp"

using namespace plansim;

namespace {

// Two GPUs joined by one duplex link of bandwidth bw and latency lat.
Topology pair_topology(Rate bw, Time lat, bool store_and_forward = false) {
  TopologyBuilder b("pair");
  NodeId g0 = b.add_node(NodeKind::gpu, "gpu0", 0, 0);
  NodeId g1 = b.add_node(NodeKind::gpu, "gpu1", 0, 1);
  b.add_duplex(g0, g1, LinkKind::nvlink, bw, lat, store_and_forward);
  return std::move(b).build();
}

// Links a = LinkId 0 (10 GB/s) and b = LinkId 1 (100 GB/s), the two hops of a small ring flow.
Topology ring_links_topology() {
  TopologyBuilder bld("ring links");
  NodeId g[3];
  for (int i = 0; i < 3; ++i) g[i] = bld.add_node(NodeKind::gpu, "g" + std::to_string(i), 0, i);
  bld.add_link(g[0], g[1], LinkKind::nvlink, GBps(10), Time::zero());
  bld.add_link(g[1], g[2], LinkKind::nvlink, GBps(100), Time::zero());
  return std::move(bld).build();
}

// |a - b| within `ps` picoseconds.
bool near(Time a, Time b, int64_t ps = 1) {
  const int64_t d = a.picoseconds() - b.picoseconds();
  return d <= ps && d >= -ps;
}

}  // namespace

TEST_CASE("flow network: one flow takes alpha + S/B", "[net][flow]") {
  // alpha = 1.5 us (the route latency), S = 1 GB, B = 10 GB/s: done at 1.5 us + 100 ms.
  Topology topo = pair_topology(GBps(10), Time::us(1.5));
  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  auto route = topo.route(GpuId(0), GpuId(1));
  REQUIRE(route.size() == 1);
  CHECK(net.route_latency(route) == Time::us(1.5));
  Time done = Time::infinite();
  FlowId f = net.start(route, GB(1), net.route_latency(route), [&] { done = sim.now(); });
  CHECK(net.active_flows() == 1);
  CHECK(net.flow_rate(f).value() == 0.0);  // still in its latency phase
  sim.run_until(Time::us(2));
  CHECK(net.flow_rate(f).value() == Approx(10e9));
  sim.run();
  CHECK(near(done, Time::us(1.5) + Time::ms(100)));
  CHECK(net.active_flows() == 0);
  CHECK(net.flows_started() == 1);
  CHECK(net.flow_rate(f).value() == 0.0);
  const LinkStats s = net.link_stats(route[0]);
  CHECK(s.bytes.value() == Approx(1e9));
  CHECK(near(s.busy, Time::ms(100)));  // busy from activation to completion, latency excluded
}

TEST_CASE("flow network: two flows sharing a bottleneck finish at alpha + 2S/B", "[net][flow]") {
  // Both move S = 500 MB over one 25 GB/s link at 12.5 GB/s each: alpha + 2·S/B = 1 us + 40 ms.
  Topology topo = pair_topology(GBps(25), Time::us(1));
  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  auto route = topo.route(GpuId(0), GpuId(1));
  std::vector<Time> done;
  for (int i = 0; i < 2; ++i) net.start(route, MB(500), Time::us(1), [&] { done.push_back(sim.now()); });
  sim.run();
  REQUIRE(done.size() == 2);
  for (Time t : done) CHECK(near(t, Time::us(1) + Time::ms(40)));
  CHECK(net.link_stats(route[0]).bytes.value() == Approx(1e9));
  // The reverse direction is a different link and carried nothing.
  auto back = topo.route(GpuId(1), GpuId(0));
  CHECK(net.link_stats(back[0]).bytes.value() == 0.0);
}

TEST_CASE("flow network: a flow joining mid-way changes rates in flight", "[net][flow]") {
  // B = 1 GB/s, no latency. A: 3 GB from t = 0. B: 1 GB from t = 1 s.
  // [0, 1): A alone at 1 GB/s -> 1 GB moved, 2 GB left. From t = 1 both at 0.5 GB/s: B needs 2 s
  // -> B done at t = 3, when A has 1 GB left; alone again at 1 GB/s -> A done at t = 4.
  Topology topo = pair_topology(GBps(1), Time::zero());
  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  auto route = topo.route(GpuId(0), GpuId(1));
  Time done_a, done_b;
  FlowId a = net.start(route, GB(3), Time::zero(), [&] { done_a = sim.now(); });
  FlowId b;
  sim.at(Time::s(1), [&] { b = net.start(route, GB(1), Time::zero(), [&] { done_b = sim.now(); }); });
  sim.run_until(Time::s(2));
  CHECK(net.flow_rate(a).value() == Approx(0.5e9));
  CHECK(net.flow_rate(b).value() == Approx(0.5e9));
  CHECK(net.link_load(route[0]).value() == Approx(1e9));
  sim.run();
  CHECK(near(done_b, Time::s(3)));
  CHECK(near(done_a, Time::s(4)));
  CHECK(near(net.link_stats(route[0]).busy, Time::s(4)));
}

TEST_CASE("flow network: two rings crossing one NIC each get half of it", "[net][flow]") {
  // Two 4-GPU NVLink rings (100 GB/s links); each ring also crosses one shared NIC link (25 GB/s),
  // modelled as one flow over its ring links plus the NIC link. Alone a ring runs at 25 GB/s (its
  // bottleneck, the NIC); together each gets 12.5 GB/s, so 1 GB takes 80 ms (alone: 40 ms).
  TopologyBuilder bld("rings");
  std::vector<NodeId> g;
  for (int i = 0; i < 8; ++i) g.push_back(bld.add_node(NodeKind::gpu, "gpu" + std::to_string(i), i / 4, i % 4));
  NodeId nic = bld.add_node(NodeKind::nic, "nic");
  NodeId sw = bld.add_node(NodeKind::leaf_switch, "sw");
  std::vector<LinkId> ring[2];
  for (size_t r = 0; r < 2; ++r)
    for (size_t i = 0; i < 4; ++i)
      ring[r].push_back(bld.add_link(g[4 * r + i], g[4 * r + (i + 1) % 4], LinkKind::nvlink, GBps(100), Time::us(1)));
  LinkId nic_link = bld.add_link(nic, sw, LinkKind::infiniband, GBps(25), Time::us(2));
  Topology topo = std::move(bld).build();
  for (auto& r : ring) r.push_back(nic_link);

  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  CHECK(net.route_latency(ring[0]) == Time::us(6));
  Time done[2];
  FlowId f[2];
  for (int r = 0; r < 2; ++r) f[r] = net.start(ring[r], GB(1), Time::zero(), [&, r] { done[r] = sim.now(); });
  sim.run_until(Time::ms(1));
  CHECK(net.flow_rate(f[0]).value() == Approx(12.5e9));
  CHECK(net.flow_rate(f[1]).value() == Approx(12.5e9));
  CHECK(net.link_load(nic_link).value() == Approx(25e9));
  sim.run();
  CHECK(near(done[0], Time::ms(80)));
  CHECK(near(done[1], Time::ms(80)));
  // Alone, one ring gets the whole NIC.
  Time alone;
  const Time t0 = sim.now();
  net.start(ring[0], GB(1), Time::zero(), [&] { alone = sim.now(); });
  sim.run();
  CHECK(near(alone - t0, Time::ms(40)));
}

TEST_CASE("flow network: 100 GB over a 12.5 GB/s link takes about 8 s", "[net][flow]") {
  Topology topo = pair_topology(Gbps(100), Time::us(2));  // 100 Gb/s = 12.5 GB/s
  Simulation sim;
  FlowNetwork net(sim, topo);
  auto route = topo.route(GpuId(0), GpuId(1));
  Time done;
  net.start(route, GB(100), net.route_latency(route), [&] { done = sim.now(); });
  sim.run();
  CHECK(near(done, Time::s(8) + Time::us(2)));
  CHECK(done.seconds() == Approx(8.0).epsilon(1e-5));
}

TEST_CASE("flow network: multiplicity and caps", "[net][flow]") {
  // A ring channel listing the link twice moves at B/2: 1 GB over 10 GB/s takes 200 ms.
  Topology topo = pair_topology(GBps(10), Time::zero());
  Simulation sim;
  FlowNetwork net(sim, topo);
  auto l = topo.route(GpuId(0), GpuId(1))[0];
  std::vector<LinkId> twice{l, l};
  Time done_twice, done_capped;
  net.start(twice, GB(1), Time::zero(), [&] { done_twice = sim.now(); });
  sim.run();
  CHECK(near(done_twice, Time::ms(200)));
  CHECK(net.link_stats(l).bytes.value() == Approx(2e9));  // counted once per crossing
  // A cap below the link rate binds: 1 GB at 4 GB/s = 250 ms.
  const Time t0 = sim.now();
  net.start(std::vector<LinkId>{l}, GB(1), Time::zero(), [&] { done_capped = sim.now(); }, GBps(4));
  sim.run();
  CHECK(near(done_capped - t0, Time::ms(250)));
}

TEST_CASE("flow network: zero-byte and link-less flows complete after their latency", "[net][flow]") {
  Topology topo = pair_topology(GBps(10), Time::us(1));
  Simulation sim;
  FlowNetwork net(sim, topo);
  auto route = topo.route(GpuId(0), GpuId(1));
  Time zero_done = Time::infinite(), local_done = Time::infinite(), capped_done = Time::infinite();
  net.start(route, Bytes(0), Time::us(3), [&] { zero_done = sim.now(); });
  net.start({}, GB(1), Time::us(2), [&] { local_done = sim.now(); });        // nothing to cross
  net.start({}, GB(1), Time::us(2), [&] { capped_done = sim.now(); }, GBps(100));  // local copy at a cap
  int immediate = 0;
  net.start(route, Bytes(0), Time::zero(), [&] { ++immediate; });
  CHECK(immediate == 0);  // on_done is an event, not a call from start()
  sim.run();
  CHECK(immediate == 1);
  CHECK(zero_done == Time::us(3));
  CHECK(local_done == Time::us(2));
  CHECK(near(capped_done, Time::us(2) + Time::ms(10)));
  CHECK(net.link_stats(route[0]).busy == Time::zero());
  CHECK(net.active_flows() == 0);
}

TEST_CASE("flow network: route latency is cut-through, store-and-forward hops add theirs again", "[net][flow]") {
  TopologyBuilder b("chain");
  NodeId a = b.add_node(NodeKind::gpu, "a", 0, 0);
  NodeId s1 = b.add_node(NodeKind::leaf_switch, "s1");
  NodeId s2 = b.add_node(NodeKind::leaf_switch, "s2");
  NodeId z = b.add_node(NodeKind::gpu, "z", 1, 0);
  LinkId l1 = b.add_link(a, s1, LinkKind::ethernet, GBps(10), Time::us(1));
  LinkId l2 = b.add_link(s1, s2, LinkKind::ethernet, GBps(10), Time::us(2), /*store_and_forward=*/true);
  LinkId l3 = b.add_link(s2, z, LinkKind::ethernet, GBps(10), Time::us(4));
  Topology topo = std::move(b).build();
  Simulation sim;
  FlowNetwork net(sim, topo);
  std::vector<LinkId> r{l1, l2, l3};
  CHECK(net.route_latency(r) == Time::us(1 + 2 + 2 + 4));
  CHECK(net.route_latency(std::vector<LinkId>{l1, l3}) == Time::us(5));
  CHECK(net.route_latency({}) == Time::zero());
}

TEST_CASE("flow network: only the changed component is re-solved", "[net][flow]") {
  // Two disjoint pairs. A flow on pair 1 starts while one on pair 0 is moving: one solve, and the
  // pair-0 flow keeps its rate and its completion time.
  TopologyBuilder b("two pairs");
  NodeId g[4];
  for (int i = 0; i < 4; ++i) g[i] = b.add_node(NodeKind::gpu, "g" + std::to_string(i), i / 2, i % 2);
  LinkId l0 = b.add_link(g[0], g[1], LinkKind::nvlink, GBps(10), Time::zero());
  LinkId l1 = b.add_link(g[2], g[3], LinkKind::nvlink, GBps(20), Time::zero());
  Topology topo = std::move(b).build();
  Simulation sim;
  FlowNetwork net(sim, topo);
  Time d0, d1;
  net.start(std::vector<LinkId>{l0}, GB(1), Time::zero(), [&] { d0 = sim.now(); });
  sim.run_until(Time::ms(10));
  CHECK(net.rate_solves() == 1);
  net.start(std::vector<LinkId>{l1}, GB(1), Time::zero(), [&] { d1 = sim.now(); });
  sim.run_until(Time::ms(20));
  CHECK(net.rate_solves() == 2);
  sim.run();
  CHECK(near(d0, Time::ms(100)));
  CHECK(near(d1, Time::ms(10) + Time::ms(50)));
  CHECK(net.rate_solves() == 2);  // completions of lone flows leave nothing to re-solve
}

namespace {
// A ring flow of 1 GB over links a (10 GB/s, its bottleneck) and b (100 GB/s) from t = 0, and a
// point-to-point flow of `p2p_bytes` joining on `p2p_link` at 1 ms; rates sampled at 2 ms.
struct RingBeside {
  const Topology topo = ring_links_topology();
  const LinkId a = LinkId::from(0), b = LinkId::from(1);
  Simulation sim;
  FlowNetwork net{sim, topo};
  Time ring_done, p2p_done;
  Rate ring_rate, p2p_rate;
  uint64_t solves_before_p2p = 0, solves_after_p2p = 0;

  void run(LinkId p2p_link, Bytes p2p_bytes) {
    net.set_check_invariants(true);
    const FlowId ring = net.start(std::vector<LinkId>{a, b}, GB(1), Time::zero(), [&] { ring_done = sim.now(); });
    sim.run_until(Time::ms(1));
    solves_before_p2p = net.rate_solves();
    const FlowId p2p = net.start(std::vector<LinkId>{p2p_link}, p2p_bytes, Time::zero(), [&] { p2p_done = sim.now(); });
    sim.run_until(Time::ms(2));
    ring_rate = net.flow_rate(ring);
    p2p_rate = net.flow_rate(p2p);
    solves_after_p2p = net.rate_solves();
    sim.run();
  }
};
}  // namespace

TEST_CASE("flow network: a transfer beside a ring bottlenecked elsewhere re-solves only itself", "[net][flow]") {
  // The ring runs at 10 GB/s. A point-to-point flow joins on b: max-min gives it b's remaining
  // 90 GB/s and leaves the ring alone (a is still saturated by the ring, which is the fastest flow
  // there). Exactly one local solve of one flow, no fallback, and the ring keeps its finish time:
  // 1 GB / 10 GB/s = 100 ms. The p2p flow moves 0.9 GB in 10 ms. When it finishes, nobody was
  // bottlenecked on b: nothing is re-solved.
  RingBeside r;
  r.run(r.b, GB(0.9));
  CHECK(r.solves_before_p2p == 1);
  CHECK(r.p2p_rate.value() == Approx(90e9));
  CHECK(r.ring_rate.value() == Approx(10e9));
  CHECK(r.solves_after_p2p == 2);
  CHECK(near(r.p2p_done, Time::ms(1) + Time::ms(10)));
  CHECK(near(r.ring_done, Time::ms(100)));
  CHECK(r.net.rate_solves() == 2);
  CHECK(r.net.rate_solve_fallbacks() == 0);
}

TEST_CASE("flow network: a transfer on a ring's bottleneck slows the ring everywhere", "[net][flow]") {
  // The same links, but the p2p flow joins on a, the ring's bottleneck: both get 5 GB/s there, so
  // the ring slows down on b too and the re-solve must include it. The ring has moved 10 MB by 1 ms;
  // the p2p flow's 0.1 GB takes 20 ms at 5 GB/s; the ring then moves 0.1 GB in those 20 ms and the
  // last 0.89 GB at 10 GB/s: it finishes at 1 + 20 + 89 = 110 ms.
  RingBeside r;
  r.run(r.a, GB(0.1));
  CHECK(r.p2p_rate.value() == Approx(5e9));
  CHECK(r.ring_rate.value() == Approx(5e9));
  CHECK(near(r.p2p_done, Time::ms(21)));
  CHECK(near(r.ring_done, Time::ms(110)));
}

TEST_CASE("flow network: bad flows are internal errors", "[net][flow]") {
  Topology topo = pair_topology(GBps(10), Time::zero());
  Simulation sim;
  FlowNetwork net(sim, topo);
  auto route = topo.route(GpuId(0), GpuId(1));
  CHECK_THROWS_AS(net.start(route, Bytes(-1), Time::zero(), [] {}), InternalError);
  CHECK_THROWS_AS(net.start(route, GB(1), Time::zero(), [] {}, Rate(0)), InternalError);
  CHECK_THROWS_AS(net.start(std::vector<LinkId>{LinkId(99)}, GB(1), Time::zero(), [] {}), InternalError);
}

TEST_CASE("flow network: identical flows share equally and still finish one by one", "[net][flow]") {
  // Three flows over the same link (12 GB/s) with 1, 2 and 3 GB (solved as one weighted entry):
  // 4 GB/s each until the 1 GB flow lands at 0.25 s. Then 1 GB and 2 GB are left, at 6 GB/s each:
  // the first lands at 0.25 + 1/6 s with 1 GB left on the last, which runs alone at 12 GB/s and
  // lands at 0.25 + 1/6 + 1/12 = 0.5 s (= 6 GB / 12 GB/s: the link never idles).
  Topology topo = pair_topology(GBps(12), Time::zero());
  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  auto route = topo.route(GpuId(0), GpuId(1));
  Time done[3];
  FlowId f[3];
  for (int i = 0; i < 3; ++i)
    f[i] = net.start(route, GB(i + 1), Time::zero(), [&, i] { done[i] = sim.now(); });
  sim.run_until(Time::ms(1));
  for (FlowId id : f) CHECK(net.flow_rate(id).value() == Approx(4e9));
  sim.run_until(Time::ms(300));
  CHECK(net.flow_rate(f[1]).value() == Approx(6e9));
  CHECK(net.flow_rate(f[2]).value() == Approx(6e9));
  sim.run();
  CHECK(near(done[0], Time::ms(250)));
  CHECK(near(done[1], Time::from_seconds(0.25 + 1.0 / 6)));
  CHECK(near(done[2], Time::ms(500)));
}

TEST_CASE("flow network: processor sharing of many flows on one link, no drift", "[net][flow]") {
  // n flows start together on one link of bandwidth B. Sorted by size s_1 <= ... <= s_n they finish
  // in order, and while k-1 have finished the rest share B equally, so
  //   T_k = T_{k-1} + (n - k + 1)(s_k - s_{k-1}) / B = (s_1 + ... + s_k + (n - k) s_k) / B.
  // 300 re-solves each round finish times to the picosecond: the error must stay at that level.
  Topology topo = pair_topology(GBps(25), Time::zero());
  Simulation sim;
  FlowNetwork net(sim, topo);
  auto route = topo.route(GpuId(0), GpuId(1));
  const size_t n = 300;
  std::vector<double> size(n);
  for (size_t i = 0; i < n; ++i) size[i] = 1e6 * static_cast<double>(1 + (i * 7919) % 1000) + 0.37 * static_cast<double>(i);
  std::vector<Time> done(n);
  for (size_t i = 0; i < n; ++i) net.start(route, Bytes(size[i]), Time::zero(), [&, i] { done[i] = sim.now(); });
  sim.run();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size[a] < size[b]; });
  double prefix = 0;
  int64_t worst = 0;
  for (size_t k = 0; k < n; ++k) {
    const double s = size[order[k]];
    prefix += s;
    const Time expect = Time::from_seconds((prefix + static_cast<double>(n - 1 - k) * s) / 25e9);
    worst = std::max(worst, std::abs(done[order[k]].picoseconds() - expect.picoseconds()));
  }
  INFO("largest deviation " << worst << " ps");
  CHECK(worst <= 1);
}

TEST_CASE("flow network: destroying it withdraws its pending events", "[net][flow]") {
  // Its activation, re-solve and completion events point at it; after it is gone the simulation
  // must be able to run on (only the on_done events already queued may remain).
  Topology topo = pair_topology(GBps(10), Time::zero());
  Simulation sim;
  int done = 0;
  {
    FlowNetwork net(sim, topo);
    auto route = topo.route(GpuId(0), GpuId(1));
    net.start(route, GB(1), Time::us(5), [&] { ++done; });   // still waiting out its latency
    net.start(route, GB(1), Time::zero(), [&] { ++done; });  // moving
    net.start(route, Bytes(0), Time::zero(), [&] { ++done; });  // completes at once: its on_done is queued
    sim.run_until(Time::ns(1));
    CHECK(sim.pending() > 1);
  }
  CHECK(sim.pending() == 0);  // the zero-byte flow's on_done already ran
  sim.run();
  CHECK(done == 1);
}

TEST_CASE("flow network: a prepared route runs as its link multiset does", "[net][flow]") {
  // Ring links a (10 GB/s) and b (100 GB/s); the multiset {a, b, a} crosses a twice, so a flow over
  // it alone moves at 10/2 = 5 GB/s: 1 GB in 200 ms. Two such flows (one late), a flow over {a} and
  // a zero-byte one: every completion time must equal what start() over the multiset gives.
  Topology topo = ring_links_topology();
  const LinkId a(0), b(1);
  const std::vector<LinkId> multiset{a, b, a};
  auto run = [&](bool prepared) {
    Simulation sim;
    FlowNetwork net(sim, topo);
    net.set_check_invariants(true);
    const FlowRouteId route = net.prepare_route(multiset);
    std::vector<Time> done(4, Time::infinite());
    auto go = [&](size_t k, Bytes bytes, Time latency) {
      auto cb = [&done, &sim, k] { done[k] = sim.now(); };
      if (prepared) net.start_prepared(route, bytes, latency, cb);
      else net.start(multiset, bytes, latency, cb);
    };
    go(0, GB(1), Time::zero());
    go(1, GB(1), Time::us(3));
    net.start(std::vector<LinkId>{a}, GB(1), Time::zero(), [&done, &sim] { done[2] = sim.now(); });
    go(3, Bytes(0), Time::us(1));
    sim.run();
    CHECK(net.link_stats(a).bytes.value() == Approx(2 * 2e9 + 1e9));
    CHECK(net.link_stats(b).bytes.value() == Approx(2e9));
    return done;
  };
  const auto plain = run(false), prep = run(true);
  CHECK(prep == plain);
  CHECK(prep[3] == Time::us(1));
  // Alone, flow 0 would take 200 ms; sharing a with two others it must take longer.
  CHECK(prep[0] > Time::ms(200));

  Simulation sim;
  FlowNetwork net(sim, topo);
  const FlowRouteId r = net.prepare_route(multiset);
  Time t = Time::infinite();
  net.start_prepared(r, GB(1), Time::zero(), [&] { t = sim.now(); });
  sim.run();
  CHECK(near(t, Time::ms(200)));
  CHECK_THROWS_AS(net.prepare_route(std::vector<LinkId>{LinkId(99)}), InternalError);
  CHECK_THROWS_AS(net.start_prepared(FlowRouteId(7), GB(1), Time::zero(), [] {}), InternalError);
}

TEST_CASE("flow network: links no route has named yet read as idle, and join when a later flow names them", "[net][flow]") {
  // The per-link records cover the links up to the highest a route has named: link 1 (100 GB/s) is
  // outside them until the second flow; it then runs 1 GB alone at 100 GB/s: 10 ms after t = 1 s.
  Topology topo = ring_links_topology();
  Simulation sim;
  FlowNetwork net(sim, topo);
  net.set_check_invariants(true);
  const LinkId a = LinkId::from(0), b = LinkId::from(1);
  net.start(std::vector<LinkId>{a}, GB(1), Time::zero(), [] {});
  CHECK(net.link_stats(b).bytes.value() == 0.0);
  CHECK(net.link_stats(b).busy == Time::zero());
  CHECK(net.link_load(b).value() == 0.0);
  Time done = Time::infinite();
  sim.at(Time::s(1), [&] { net.start(std::vector<LinkId>{b}, GB(1), Time::zero(), [&] { done = sim.now(); }); });
  sim.run();
  CHECK(near(done, Time::s(1) + Time::ms(10)));
  CHECK(net.link_stats(b).bytes.value() == Approx(1e9));
  CHECK(net.link_stats(a).bytes.value() == Approx(1e9));
}
