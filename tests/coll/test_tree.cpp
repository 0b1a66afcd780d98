// NCCL's tree all-reduce across servers (algo_tree.cpp): a double binary tree over the servers with a chain
// inside each, one chain order per local GPU so that every NIC carries tree traffic; and NCCL's tree
// bandwidth factors (nccl_model.hpp tree_allreduce_efficiency, tree_size_correction).
#include <catch2/catch.hpp>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/net/flow_network.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {

double tree_seconds(const Topology& topo, int n, double bytes, const NcclModelParams& m, const char* proto = "Simple") {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, m);
  double t = -1;
  runner.start(CollectiveCall{CollOp::all_reduce, test::first_gpus(n), Bytes(bytes), 0, "tree", proto},
               [&](const CollectiveResult& r) { t = (r.end - r.start).seconds(); });
  sim.run();
  return t;
}

}  // namespace

// Seconds of an ideal-model tree all-reduce of 1 GB over `hosts` servers of 4 GPUs, each with a 50 GB/s NIC,
// in units of S / (L x B).
static double tree_time_in_S_over_LB(int hosts) {
  const int L = 4;
  const Rate B = GBps(50);
  const double S = 1e9;
  return tree_seconds(test::one_nic_per_gpu(hosts, L, B), hosts * L, S, NcclModelParams::ideal()) / (S / (L * B.value()));
}

TEST_CASE("tree: across 2 servers each NIC carries its chain order's two trees once each way: t = S / (L x B)",
          "[coll][tree]") {
  // Tree 0 roots at server 0, tree 1 (mirrored) at server 1; order k's flows cross on GPU k's NICs, each
  // once per direction, so each flow gets B / 2 and moves S / 2L. A flat tree over the 8 ranks sent all
  // its cross-server edges through a few GPUs' NICs.
  CHECK(tree_time_in_S_over_LB(2) == Approx(1.0).epsilon(1e-9));
}

TEST_CASE("tree: across 4 servers an inner server's NIC carries one tree 3 times and the other once: t = 2S / (L x B)",
          "[coll][tree]") {
  // Over 4 servers tree 0 is 0 <- 2 <- {1, 3} and tree 1 its mirror 3 <- 1 <- {2, 0}: server 2's NIC k sends
  // tree 0's order-k flow up once and down to 2 children, and tree 1's once (a leaf there): 4 shares of
  // B, so each flow moves S / 2L at B / 4 (algbw L x B / 2, about a ring's L x B x n / 2(n - 1)).
  CHECK(tree_time_in_S_over_LB(4) == Approx(2.0).epsilon(1e-9));
}

TEST_CASE("tree: NCCL's treeCorrectionFactor by protocol and log2(bytes / 64), 1 from 512 MiB", "[coll][tree]") {
  CHECK(tree_size_correction(Protocol::simple, Bytes(8)) == 0.9);            // log2i(0) = 0
  CHECK(tree_size_correction(Protocol::ll128, Bytes(127)) == 1.0);           // 127 >> 6 = 1: index 0
  CHECK(tree_size_correction(Protocol::ll, Bytes(64.0 * 4096)) == 0.4);      // index 12
  CHECK(tree_size_correction(Protocol::simple, Bytes(1048576)) == 0.5);      // 2^14 units: index 14
  CHECK(tree_size_correction(Protocol::ll128, Bytes(1048576)) == 0.6);
  CHECK(tree_size_correction(Protocol::simple, Bytes(256.0 * 1048576)) == 0.9);  // index 22, the last
  CHECK(tree_size_correction(Protocol::simple, Bytes(512.0 * 1048576)) == 1.0);  // past the table
}

TEST_CASE("tree: an all-reduce's bandwidth is x 0.92 x the size correction; other ops and algorithms are not", "[coll][tree]") {
  const Topology topo = test::one_nic_per_gpu(2, 4, GBps(50));
  NcclModelParams m = NcclModelParams::ideal();
  const double S = 1048576;  // Simple's factor 0.5 here
  const double plain = tree_seconds(topo, 8, S, m);
  m.tree_allreduce_efficiency = 0.92;
  CHECK(tree_seconds(topo, 8, S, m) == Approx(plain / 0.92).epsilon(1e-5));
  m.tree_size_correction = true;
  CHECK(tree_seconds(topo, 8, S, m) == Approx(plain / (0.92 * 0.5)).epsilon(1e-5));
  // A ring all-reduce of the same call is untouched.
  auto ring = [&](const NcclModelParams& p) {
    Simulation sim;
    FlowNetwork net(sim, topo);
    CollectiveRunner runner(net, p);
    double t = -1;
    runner.start(CollectiveCall{CollOp::all_reduce, test::first_gpus(8), Bytes(S), 0, "ring", "Simple"},
                 [&](const CollectiveResult& r) { t = (r.end - r.start).seconds(); });
    sim.run();
    return t;
  };
  CHECK(ring(m) == Approx(ring(NcclModelParams::ideal())).epsilon(1e-12));
}

TEST_CASE("tree: under the size correction an all-reduce pays no pipeline fill of its own; without it, the fill", "[coll][tree]") {
  // treeCorrectionFactor is NCCL's measured rate of its trees by size, start-up included: the explicit fill
  // (min(stages - 1, depth) chunks) would count the start-up a second time.
  const Topology topo = test::one_nic_per_gpu(4, 4, GBps(50));
  const double S = 32.0 * 1048576;  // Simple's factor 0.7 here (log2(S / 64) = 19)
  NcclModelParams m = NcclModelParams::ideal();
  const double plain = tree_seconds(topo, 16, S, m);
  m.pipeline_chunk_bytes = NcclModelParams{}.pipeline_chunk_bytes;
  m.pipeline_depth = 8;
  const double filled = tree_seconds(topo, 16, S, m);
  // 8 tree sets of 4 MiB, each with min(stages - 1, 8) = 7 chunks of NCCL's 512 KiB Simple tree chunk.
  CHECK(filled > plain * 1.5);
  m.tree_size_correction = true;
  CHECK(tree_seconds(topo, 16, S, m) == Approx(plain / 0.7).epsilon(1e-5));
}

TEST_CASE("tree: NCCL's tree chunk: one buffer step (Simple 512 KiB, LL 32 KiB); LL128's halves for small calls", "[coll][tree]") {
  const NcclModelParams m;
  auto chunk = [&](Protocol p, double per_channel) {
    return tree_chunk_bytes(p, Bytes(per_channel), 4, 8, Bytes(m.pipeline_chunk_bytes[static_cast<size_t>(p)])).value();
  };
  CHECK(chunk(Protocol::simple, 1048576) == 524288);
  CHECK(chunk(Protocol::ll, 1048576) == 32768);
  // 4 servers of 8: nstepsLL128 = 1 + 2 + 0.8 = 3.8; a channel wants 3.8 x 64 / 8 = 30.4 chunks above
  // 128 KiB, then 7.6 above 32 KiB. 512 KiB per channel: 576,000 -> 288,000 -> 144,000 -> 72,000 (first
  // loop), then 72,000 -> 36,000 (floor(524288 / 72000) = 7 < 7.6).
  CHECK(chunk(Protocol::ll128, 524288) == 36000);
  CHECK(chunk(Protocol::ll128, 64.0 * 1048576) == 576000);  // large: one step
  CHECK(chunk(Protocol::ll128, 32768) == 18000);            // stops at <= 32 KiB
}
