// NCCL's channels (sim/coll/nccl_channels.hpp) and the bounded pipeline fill (nccl_model.hpp), checked
// against closed forms on a uniform ring with the model otherwise ideal; and the 16,384-GPU scale check.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_channels.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/selection.hpp"
#include "sim/net/flow_network.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
double run_seconds(const Topology& topo, const CollectiveCall& call, const NcclModelParams& m, uint64_t* flows = nullptr) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, m);
  double t = -1;
  runner.start(call, [&](const CollectiveResult& r) { t = (r.end - r.start).seconds(); });
  sim.run();
  if (flows) *flows = net.flows_started();
  return t;
}
CollectiveCall ring_call(int n, double bytes, const char* proto) {
  return CollectiveCall{CollOp::all_reduce, test::first_gpus(n), Bytes(bytes), 0, "ring", proto};
}
}  // namespace

TEST_CASE("channels: a call uses floor(S / (threads x threshold)) channels, at least 1, at most the open ones", "[coll]") {
  NcclModelParams m;  // Simple: 512 threads x 64 B = 32 KiB per channel; LL: 512 x 8 B x nRanks
  CHECK(channels_used(m, Protocol::simple, Bytes(0), 8, 16) == 1);
  CHECK(channels_used(m, Protocol::simple, Bytes(4 * 32768.0), 8, 16) == 4);
  CHECK(channels_used(m, Protocol::simple, Bytes(4 * 32768.0 - 1), 8, 16) == 3);
  CHECK(channels_used(m, Protocol::simple, Bytes(1e12), 8, 16) == 16);
  CHECK(channels_used(m, Protocol::ll, Bytes(2 * 512 * 8 * 8.0), 8, 16) == 2);
  CHECK(channels_used(m, Protocol::ll128, Bytes(3 * 640 * 8.0), 8, 16) == 3);
  CHECK(channels_for_topology(HwKind::nvlink) == 16);
  CHECK(channels_for_topology(HwKind::pci) == 2);
}

TEST_CASE("channels: a ring with c of C channels in use moves at c/C of the link rate", "[coll]") {
  const int n = 4;
  const Rate B = GBps(100);
  const Topology topo = test::ring_topology(n, B, Time::zero());
  NcclModelParams m = NcclModelParams::ideal();
  m.nccl_channels = 4;
  m.thread_threshold = {0.0, 0.0, 64.0};  // Simple: 32 KiB per channel
  const double S = 2 * 32768.0;           // 2 of the 4 channels
  const double t = run_seconds(topo, ring_call(n, S, "Simple"), m);
  CHECK(t == Approx(2.0 * (n - 1) / n * S / B.value() * 4 / 2).epsilon(1e-9));
  // Large enough for every channel: the link rate.
  const double big = 1e9;
  CHECK(run_seconds(topo, ring_call(n, big, "Simple"), m) == Approx(2.0 * (n - 1) / n * big / B.value()).epsilon(1e-9));
}

TEST_CASE("channels: LL128's bus bandwidth is at most channels x the per-channel cap; LL's at ll_max", "[coll]") {
  const int n = 4;
  const Rate B = GBps(100);
  const Topology topo = test::ring_topology(n, B, Time::zero());
  NcclModelParams m = NcclModelParams::ideal();
  m.nccl_channels = 2;
  m.channel_cap_GBps = {0.0, 10.0, 0.0};
  m.ll_max_GBps = 30.0;
  const double S = 1e9, bus = 2.0 * (n - 1) / n * S;
  CHECK(run_seconds(topo, ring_call(n, S, "LL128"), m) == Approx(bus / 20e9).epsilon(1e-9));
  CHECK(run_seconds(topo, ring_call(n, S, "LL"), m) == Approx(bus / 30e9).epsilon(1e-9));
  CHECK(run_seconds(topo, ring_call(n, S, "Simple"), m) == Approx(bus / B.value()).epsilon(1e-9));
  // The prediction `auto` ranks with agrees with the network run.
  const auto reg = make_default_registry();
  const CollectiveChoice c = choose_collective(reg, m, topo, ring_call(n, S, "LL128"));
  CHECK(c.predicted.seconds() == Approx(bus / 20e9).epsilon(1e-9));
}

TEST_CASE("channels: LL's cap is ll_max on one server, the host CPU's llMaxBws on 2 and on more servers", "[coll]") {
  // tuning.cc llMaxBws (NCCL 2.19-2.27): index2 = nNodes <= 2 ? nNodes - 1 : 2. Links fast enough for
  // the caps to bind: t = bus bytes / cap (+ the routes' sub-microsecond latency).
  NcclModelParams m = NcclModelParams::ideal();
  m.nccl_channels = 2;
  m.ll_max_GBps = 30.0;
  m.ll_max_multi_node_GBps = {12.0, 6.0};
  CHECK(ll_max_GBps(m, 1) == 30.0);
  CHECK(ll_max_GBps(m, 2) == 12.0);
  CHECK(ll_max_GBps(m, 3) == 6.0);
  CHECK(ll_max_GBps(m, 64) == 6.0);
  const double S = 1e9;
  for (auto [hosts, cap] : {std::pair{1, 30e9}, {2, 12e9}, {3, 6e9}, {4, 6e9}}) {
    const Topology topo = test::cluster_topology(hosts, 2, false, GBps(450), GBps(500));
    const int n = 2 * hosts;
    const double bus = 2.0 * (n - 1) / n * S;
    INFO(hosts << " servers");
    CHECK(run_seconds(topo, ring_call(n, S, "LL"), m) == Approx(bus / cap).epsilon(1e-4));
    // LL128's per-channel cap does not depend on the servers (perChMaxRingLL128Bws rows are flat).
    CHECK(run_seconds(topo, ring_call(n, S, "Simple"), m) < bus / cap / 2);
  }
  // Two servers in one NVLink domain (GB200 NVL72-like) are one node to NCCL's caps (MNNVL): ll_max.
  TopologyBuilder b("nvlink-domain");
  b.set_num_hosts(2);
  const NodeId sw = b.add_node(NodeKind::nvswitch, "nvsw", 0, -1, false);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 2; ++i) {
      const NodeId g = b.add_node(NodeKind::gpu, "h" + std::to_string(h) + "g" + std::to_string(i), h, i);
      b.add_duplex(g, sw, LinkKind::nvlink, GBps(450), Time::ns(200));
    }
  const Topology domain = std::move(b).build();
  CHECK(run_seconds(domain, ring_call(4, S, "LL"), m) == Approx(2.0 * 3 / 4 * S / 30e9).epsilon(1e-4));
  // NCCL's defaults: Intel hosts (llMaxBws row 0: 39.0 / 20.4 GB/s).
  CHECK(ll_max_GBps(NcclModelParams{}, 2) == 39.0);
  CHECK(ll_max_GBps(NcclModelParams{}, 8) == 20.4);
}

TEST_CASE("pipeline fill: a ring pays none (every rank starts with its own data)", "[coll]") {
  const Rate B = GBps(100);
  const double chunk = 1048576.0;
  for (int n : {2, 4, 64}) {
    const Topology topo = test::ring_topology(n, B, Time::zero());
    NcclModelParams m = NcclModelParams::ideal();
    m.pipeline_chunk_bytes = {0.0, 0.0, chunk};
    m.pipeline_depth = 8;
    for (double S : {64.0 * n * chunk, 0.5 * n * chunk}) {  // stages hold more / less than a chunk
      INFO(n << " ranks, " << S << " B");
      CHECK(run_seconds(topo, ring_call(n, S, "Simple"), m) == Approx(2.0 * (n - 1) / n * S / B.value()).epsilon(1e-9));
    }
  }
}

TEST_CASE("pipeline fill: a chain pays min(stages - 1, pipeline_depth) chunks, however long", "[coll]") {
  const Rate B = GBps(100);
  const double chunk = 1048576.0;
  for (int n : {4, 64}) {
    const Topology topo = test::ring_topology(n, B, Time::zero());
    NcclModelParams m = NcclModelParams::ideal();
    m.pipeline_chunk_bytes = {0.0, 0.0, chunk};
    m.pipeline_depth = 8;
    const double S = 64.0 * chunk;
    const double fill = std::min(n - 2, 8) * chunk;  // n - 1 hops in the line from the root
    const CollectiveCall call{CollOp::broadcast, test::first_gpus(n), Bytes(S), 0, "chain", "Simple"};
    CHECK(run_seconds(topo, call, m) == Approx((S + fill) / B.value()).epsilon(1e-9));
  }
}

TEST_CASE("scale: a 16,384-GPU all-reduce costs flows in proportion to GPUs, not GPUs squared", "[coll][scale]") {
  const int hosts = 2048, per_host = 8, n = hosts * per_host;
  const Topology topo = test::cluster_topology(hosts, per_host);
  const NcclModelParams m;
  const auto reg = make_default_registry();
  for (const char* algo : {"ring", "tree", "hierarchical", "auto"}) {
    INFO(algo);
    CollectiveCall call{CollOp::all_reduce, test::first_gpus(n), Bytes(1 << 30), 0, algo, "auto"};
    const CollectiveChoice c = choose_collective(reg, m, topo, call);
    size_t link_entries = 0;
    for (const auto& ph : c.plan.phases)
      for (const auto& f : ph.flows) link_entries += f.links.size();
    // Each GPU's hops appear a bounded number of times (channels x phases x route length); the most is
    // the tree's: 2 trees x 8 chain orders, each edge up and down, routes of 2 (NVLink) to 6 links.
    CHECK(link_entries <= static_cast<size_t>(128) * n);
    uint64_t flows = 0;
    CHECK(run_seconds(topo, call, m, &flows) > 0);
    CHECK(flows == c.plan.num_flows());
    CHECK(flows <= static_cast<uint64_t>(4) * n);
  }
}

TEST_CASE("latency: network steps add the transport latency (x2 Simple), one GPU per server takes the tree's", "[coll]") {
  NcclModelParams m;
  m.net_latency_us = 5.0;
  FlowPlan plan;
  plan.phases.emplace_back();
  plan.steps_intra = 2;
  plan.steps_inter = 2;
  // Ring/Simple: base 8.4 + 2 x max(NVLink 3.4, overhead 1 x 3) + 2 x (net 14 + 2 x 5).
  CHECK(software_latency(m, LatencyClass::ring, Protocol::simple, plan, HwKind::nvlink).micros() ==
        Approx(8.4 + 2 * 3.4 + 2 * (14.0 + 10.0)));
  // Ring/LL: the intra-server step costs at least the network overhead (1 us > NVLink LL 0.6).
  CHECK(software_latency(m, LatencyClass::ring, Protocol::ll, plan, HwKind::nvlink).micros() ==
        Approx(6.6 + 2 * 1.0 + 2 * (2.7 + 5.0)));
  // One GPU per server: tree's network LL latency (5.0), not the ring's (2.7).
  plan.steps_intra = 0;
  CHECK(software_latency(m, LatencyClass::ring, Protocol::ll, plan, HwKind::nvlink).micros() ==
        Approx(6.6 + 2 * (5.0 + 5.0)));
  // Inside one server none of it applies.
  plan.steps_intra = 2;
  plan.steps_inter = 0;
  CHECK(software_latency(m, LatencyClass::ring, Protocol::ll, plan, HwKind::nvlink).micros() == Approx(6.6 + 2 * 0.6));
}
