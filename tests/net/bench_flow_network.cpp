// Flow-network benchmarks ([bench]: not run by ctest). Run: build/tests/plansim_tests "[bench]"
// Each case runs its workload 5 times and prints the median wall time, flows/s and events/s.
#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <vector>

#include "sim/net/flow_network.hpp"

using namespace plansim;

namespace {

struct RunStats {
  double wall_s = 0;
  double cpu_s = 0;
  uint64_t flows = 0;
  uint64_t events = 0;
  uint64_t solves = 0;
};

// Runs `body` (which builds and runs one simulation, filling flows/events/solves) five times.
// Checks that every run started `expect_flows` flows and left none behind.
void bench(const char* name, uint64_t expect_flows, const std::function<RunStats()>& body) {
  std::vector<RunStats> runs;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    RunStats s = body();
    CHECK(s.flows == expect_flows);
    s.cpu_s = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    runs.push_back(s);
  }
  std::sort(runs.begin(), runs.end(), [](const RunStats& a, const RunStats& b) { return a.wall_s < b.wall_s; });
  const RunStats& m = runs[runs.size() / 2];
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  // Medians of wall and CPU time taken separately (CPU time is steadier on a shared machine).
  std::vector<double> cpu;
  for (const RunStats& r : runs) cpu.push_back(r.cpu_s);
  std::sort(cpu.begin(), cpu.end());
  fmt::print("{:<42} median wall {:7.1f} ms cpu {:7.1f} ms | {:6} flows {:9.0f} flows/s | {:7} events {:9.0f} events/s | "
             "{:6} solves | maxrss {} MB\n",
             name, m.wall_s * 1e3, cpu[cpu.size() / 2] * 1e3, m.flows, static_cast<double>(m.flows) / m.wall_s, m.events,
             static_cast<double>(m.events) / m.wall_s, m.solves, ru.ru_maxrss / 1024);
}

// n separate links (each its own pair of nodes) of 50 GB/s and 1 us latency.
Topology disjoint_links(size_t n) {
  TopologyBuilder b("disjoint");
  for (size_t i = 0; i < n; ++i) {
    NodeId a = b.add_node(NodeKind::gpu, "a" + std::to_string(i));
    NodeId z = b.add_node(NodeKind::gpu, "z" + std::to_string(i));
    b.add_link(a, z, LinkKind::nvlink, GBps(50), Time::us(1));
  }
  return std::move(b).build();
}

// A ring of n links (node i -> node i+1 mod n).
Topology ring(size_t n, Rate bw) {
  TopologyBuilder b("ring");
  std::vector<NodeId> g;
  for (size_t i = 0; i < n; ++i) g.push_back(b.add_node(NodeKind::gpu, "g" + std::to_string(i)));
  for (size_t i = 0; i < n; ++i) b.add_link(g[i], g[(i + 1) % n], LinkKind::nvlink, bw, Time::us(1));
  return std::move(b).build();
}

// Starts `rounds` flows back to back over `links`: each one's on_done starts the next.
void chain(FlowNetwork& net, std::vector<LinkId> links, int rounds, double bytes, Time latency) {
  auto step = std::make_shared<std::function<void(int)>>();
  *step = [&net, links = std::move(links), bytes, latency, step_w = std::weak_ptr(step)](int left) {
    if (left == 0) return;
    auto s = step_w.lock();
    net.start(links, Bytes(bytes * (1.0 + 0.01 * left)), latency, [s, left] { (*s)(left - 1); });
  };
  (*step)(rounds);
  // Keep the closure alive while flows hold it (they capture the shared_ptr).
}

}  // namespace

TEST_CASE("bench: disjoint concurrent flows started and finished repeatedly", "[bench]") {
  // (a) 4,096 independent links, each carrying 50 flows one after another (sizes differ per link,
  // so completions are spread in time): 204,800 flows, every component a single flow.
  const Topology topo = disjoint_links(4096);
  bench("(a) 4096 disjoint flows x 50 rounds", 4096 * 50, [&] {
    Simulation sim;
    FlowNetwork net(sim, topo);
    for (uint32_t i = 0; i < 4096; ++i)
      chain(net, {LinkId(i)}, 50, 1e6 * (1 + i % 13), Time::us(1));
    sim.run();
    CHECK(net.active_flows() == 0);
    return RunStats{0, 0, net.flows_started(), sim.events_processed(), net.rate_solves()};
  });
}

TEST_CASE("bench: 16k flows in 2k independent components of 8", "[bench]") {
  // (b) 2,048 rings of 8 links; flow j of a ring crosses links j and j+1, so the 8 flows of a ring
  // form one component. Each flow restarts 10 times: 163,840 flows.
  const Topology topo = disjoint_links(2048 * 8);
  bench("(b) 2048 components x 8 flows x 10 rounds", 2048 * 8 * 10, [&] {
    Simulation sim;
    FlowNetwork net(sim, topo);
    for (uint32_t c = 0; c < 2048; ++c)
      for (uint32_t j = 0; j < 8; ++j)
        chain(net, {LinkId(8 * c + j), LinkId(8 * c + (j + 1) % 8)}, 10, 1e6 * (1 + (c + 3 * j) % 11), Time::us(1));
    sim.run();
    CHECK(net.active_flows() == 0);
    return RunStats{0, 0, net.flows_started(), sim.events_processed(), net.rate_solves()};
  });
}

TEST_CASE("bench: one coupled ring flow over 4096 links", "[bench]") {
  // (c) A ring channel over 4,096 links as one flow, 1,000 times back to back; then 8 such
  // channels at once (one component of 8 flows x 4,096 links), 100 rounds each.
  const Topology topo = ring(4096, GBps(50));
  std::vector<LinkId> all;
  for (uint32_t i = 0; i < 4096; ++i) all.emplace_back(i);
  bench("(c) 1 ring flow of 4096 links x 1000", 1000, [&] {
    Simulation sim;
    FlowNetwork net(sim, topo);
    chain(net, all, 1000, 1e6, Time::us(1));
    sim.run();
    CHECK(net.active_flows() == 0);
    return RunStats{0, 0, net.flows_started(), sim.events_processed(), net.rate_solves()};
  });
  bench("(c') 8 ring channels of 4096 links x 100", 800, [&] {
    Simulation sim;
    FlowNetwork net(sim, topo);
    for (int ch = 0; ch < 8; ++ch) chain(net, all, 100, 1e6 * (1 + 0.1 * ch), Time::us(1));
    sim.run();
    CHECK(net.active_flows() == 0);
    return RunStats{0, 0, net.flows_started(), sim.events_processed(), net.rate_solves()};
  });
}

TEST_CASE("bench: 10k flows through one shared link", "[bench]") {
  // (d) Incast: 10,000 senders, each with its own 50 GB/s link, all into one shared 100 GB/s link.
  // All start together with different sizes, so each completion re-solves the whole component:
  // the worst case for component-wise re-solving (quadratic in the flows sharing the link).
  TopologyBuilder b("incast");
  NodeId sink = b.add_node(NodeKind::gpu, "sink");
  NodeId sw = b.add_node(NodeKind::leaf_switch, "sw");
  const LinkId shared = b.add_link(sw, sink, LinkKind::infiniband, GBps(100), Time::us(1));
  std::vector<LinkId> own;
  for (int i = 0; i < 10000; ++i)
    own.push_back(b.add_link(b.add_node(NodeKind::gpu, "s" + std::to_string(i)), sw, LinkKind::infiniband, GBps(50),
                             Time::us(1)));
  const Topology topo = std::move(b).build();
  bench("(d) 10000 flows through one link", 10000, [&] {
    Simulation sim;
    FlowNetwork net(sim, topo);
    for (size_t i = 0; i < own.size(); ++i)
      net.start(std::vector<LinkId>{own[i], shared}, Bytes(1e6 * (1 + static_cast<double>(i) * 1e-4)),
                Time::us(2), [] {});
    sim.run();
    CHECK(net.active_flows() == 0);
    return RunStats{0, 0, net.flows_started(), sim.events_processed(), net.rate_solves()};
  });
}
