// NCCL's broadcast and reduce (algo_chain.cpp): a pipeline along each channel's ring from (to) the root.
// Across servers the channels' rings leave each server through different GPUs, so the lines do too.
#include <catch2/catch.hpp>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/net/flow_network.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {

double chain_seconds(const Topology& topo, CollOp op, int n, double bytes, int root) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, NcclModelParams::ideal());
  double t = -1;
  runner.start(CollectiveCall{op, test::first_gpus(n), Bytes(bytes), root, "chain", "Simple"},
               [&](const CollectiveResult& r) { t = (r.end - r.start).seconds(); });
  sim.run();
  return t;
}

}  // namespace

TEST_CASE("chain: across servers each line crosses the servers through its own GPU's NIC: t = S / (L x B)", "[coll][chain]") {
  // 4 servers x 4 GPUs, a 50 GB/s NIC per GPU, NVLink never binding: L = 4 lines of S / 4, each entering
  // and leaving every server through a NIC no other line uses in that direction (the root's server is
  // re-entered at the end of the line through another GPU's NIC). One line through all 16 ranks sent
  // S through one NIC per server: t = S / B, 4x as long.
  const Topology topo = test::one_nic_per_gpu(4, 4, GBps(50));
  const double S = 1e9, B = 50e9, L = 4;
  for (const CollOp op : {CollOp::broadcast, CollOp::reduce})
    for (const int root : {0, 5, 15}) {
      INFO("op " << static_cast<int>(op) << " root " << root);
      CHECK(chain_seconds(topo, op, 16, S, root) == Approx(S / (L * B)).epsilon(1e-6));
    }
}

TEST_CASE("chain: on one server the line is the ranks from the root, carrying all of S", "[coll][chain]") {
  // A ring topology of 4 GPUs, 10 GB/s links: the line root, root+1, ... crosses 3 links, each carrying S.
  const Topology topo = test::ring_topology(4, GBps(10), Time::zero());
  CHECK(chain_seconds(topo, CollOp::broadcast, 4, 1e9, 1) == Approx(1e9 / 10e9).epsilon(1e-6));
}

TEST_CASE("chain: auto runs broadcast and reduce on the chain (NCCL's Ring), never the rooted tree", "[coll][chain]") {
  // tuning.cc: "if (coll == ncclFuncBroadcast && a != NCCL_ALGO_RING) continue" (Reduce likewise).
  const Topology topo = test::one_nic_per_gpu(4, 4, GBps(50));
  for (const CollOp op : {CollOp::broadcast, CollOp::reduce})
    for (const double bytes : {1024.0, 1048576.0, 1073741824.0}) {
      Simulation sim;
      FlowNetwork net(sim, topo);
      CollectiveRunner runner(net, NcclModelParams{});
      std::string algo;
      runner.start(CollectiveCall{op, test::first_gpus(16), Bytes(bytes), 0, "auto", "auto"},
                   [&](const CollectiveResult& r) { algo = r.algorithm; });
      sim.run();
      CHECK(algo == "chain");
    }
}
