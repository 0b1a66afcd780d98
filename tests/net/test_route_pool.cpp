// Prepared routes live in one pool of entries (FlowNetwork::prepare_route): routes of every length,
// inline (up to 8 distinct links) and longer, prepared interleaved with flows already running, run
// exactly as start() over the same link multisets does: same completion times, bit for bit, and the
// same bytes on every link.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "sim/net/flow_network.hpp"
#include "sim/topo/topology.hpp"

using namespace plansim;

namespace {

// A chain of 16 GPUs, 15 links of different bandwidths.
Topology chain_topology() {
  TopologyBuilder bld("chain");
  std::vector<NodeId> g;
  for (int i = 0; i < 16; ++i) g.push_back(bld.add_node(NodeKind::gpu, "g" + std::to_string(i), 0, i));
  for (size_t i = 0; i + 1 < g.size(); ++i)
    bld.add_link(g[i], g[i + 1], LinkKind::nvlink, GBps(10.0 + static_cast<double>(i)), Time::zero());
  return std::move(bld).build();
}

}  // namespace

TEST_CASE("flow network: prepared routes of every length run as their link multisets do", "[net][flow][route]") {
  const Topology topo = chain_topology();
  std::mt19937_64 rng(11);
  std::vector<std::vector<LinkId>> multisets;
  for (size_t n = 1; n <= 14; ++n) {  // n distinct links (past the 8 kept inline), some listed twice
    std::vector<LinkId> m;
    for (size_t k = 0; k < n; ++k) m.push_back(LinkId::from((k * 7 + n) % 15));
    if (n % 3 == 0) m.push_back(m.front());
    multisets.push_back(m);
  }
  struct Start {
    size_t route;
    double bytes;
    Time at, latency;
  };
  std::vector<Start> starts;
  for (int i = 0; i < 60; ++i)
    starts.push_back(Start{static_cast<size_t>(rng() % multisets.size()), 1e6 * static_cast<double>(1 + rng() % 50),
                           Time::us(static_cast<double>(rng() % 400)), Time::ns(static_cast<double>(rng() % 3000))});
  auto run = [&](bool prepared) {
    Simulation sim;
    FlowNetwork net(sim, topo);
    net.set_check_invariants(true);
    std::vector<FlowRouteId> routes(multisets.size());
    std::vector<bool> ready(multisets.size(), false);
    std::vector<Time> done(starts.size(), Time::infinite());
    for (size_t i = 0; i < starts.size(); ++i)
      sim.at(starts[i].at, [&, i] {
        const Start& s = starts[i];
        auto cb = [&done, &sim, i] { done[i] = sim.now(); };
        if (!prepared) {
          net.start(multisets[s.route], Bytes(s.bytes), s.latency, cb);
          return;
        }
        if (!ready[s.route]) {  // prepared on first use: the pool grows while flows run
          routes[s.route] = net.prepare_route(multisets[s.route]);
          ready[s.route] = true;
        }
        net.start_prepared(routes[s.route], Bytes(s.bytes), s.latency, cb);
      });
    sim.run();
    std::vector<double> bytes;
    for (size_t l = 0; l < topo.links().size(); ++l) bytes.push_back(net.link_stats(LinkId::from(l)).bytes.value());
    return std::make_pair(done, bytes);
  };
  const auto plain = run(false), prep = run(true);
  for (const Time t : prep.first) CHECK(!t.is_infinite());
  CHECK(prep.first == plain.first);
  CHECK(prep.second == plain.second);
}
