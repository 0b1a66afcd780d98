// NCCL's NVLS all-reduce pipeline (sim/coll/nvls_pipeline.hpp): the chunk calcCollChunking picks by size,
// and the fill it costs, checked in closed form on one NVSwitch node with the model otherwise ideal.
#include <catch2/catch.hpp>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/nvls_pipeline.hpp"
#include "sim/net/flow_network.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
constexpr double kKiB = 1024.0, kMiB = 1048576.0;

double nvls_seconds(const Topology& topo, int n, double bytes, const NcclModelParams& m) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, m);
  double t = -1;
  runner.start(CollectiveCall{CollOp::all_reduce, test::first_gpus(n), Bytes(bytes), 0, "nvls"},
               [&](const CollectiveResult& r) { t = (r.end - r.start).seconds(); });
  sim.run();
  return t;
}
}  // namespace

TEST_CASE("nvls pipeline: the chunk shrinks below 64 x, 8 x, 2 x channels x heads x chunk (calcCollChunking)", "[coll]") {
  const NcclModelParams m;  // 16 channels, 128 KiB chunk; 8 heads: 128 concurrent chunks
  auto chunk = [&](double s) { return nvls_chunk_bytes(m, Bytes(s), 8).value(); };
  CHECK(chunk(1 * kMiB) == 16 * kKiB);
  CHECK(chunk(8 * kMiB - 1) == 16 * kKiB);   // < 2 x 128 x 32 KiB
  CHECK(chunk(8 * kMiB) == 32 * kKiB);
  CHECK(chunk(64 * kMiB - 1) == 32 * kKiB);  // < 8 x 128 x 64 KiB
  CHECK(chunk(64 * kMiB) == 64 * kKiB);
  CHECK(chunk(1024 * kMiB - 1) == 64 * kKiB);  // < 64 x 128 x 128 KiB
  CHECK(chunk(1024 * kMiB) == 128 * kKiB);
  CHECK(nvls_loop_bytes(m, Bytes(32 * kMiB), 8).value() == 16 * 8 * 32 * kKiB);
  // Fewer heads: the thresholds move with channels x heads.
  CHECK(nvls_chunk_bytes(m, Bytes(4 * kMiB), 4).value() == 32 * kKiB);  // 4 MiB = 2 x 64 x 32 KiB
  // Fill: (stages - 1) loops, no more than the call per loop.
  CHECK(nvls_fill_bytes(m, Bytes(4 * kMiB), 8).value() == 2 * (16 * 8 * 16 * kKiB));
  CHECK(nvls_fill_bytes(m, Bytes(1 * kMiB), 8).value() == 2 * kMiB);
  CHECK(nvls_fill_bytes(NcclModelParams::ideal(), Bytes(4 * kMiB), 8).value() == 0.0);
}

TEST_CASE("nvls pipeline closed form: t = latency + (S + (stages-1) x min(S, loop)) x (1 + 1/n) / rate", "[coll]") {
  const Topology topo = test::cluster_topology(1, 8, true);  // 450 GB/s per GPU to the switch, 200 ns per hop
  NcclModelParams m = NcclModelParams::ideal();
  m.nvls_chunk_bytes = 128 * kKiB;
  m.hw_latency_us[0][2][2] = 25.0;  // NVLink, NVLS, Simple: one step
  // A payload byte costs a GPU's link 1 + 1/8 bytes each way (algo_nvls.cpp: the head's load and store).
  // The two 200 ns hops are inside NVLS's 25 us step latency (a call pays max(steps, route): nccl_model.hpp).
  const double rate = 450e9 / (1.0 + 1.0 / 8), lat = 25e-6;
  // 4 MiB: chunk 16 KiB, loop 2 MiB: two loops of fill.
  CHECK(nvls_seconds(topo, 8, 4 * kMiB, m) == Approx(lat + (4 * kMiB + 2 * 2 * kMiB) / rate).epsilon(1e-6));
  // 512 KiB, less than a loop: each stage holds the whole call, 3 x S.
  CHECK(nvls_seconds(topo, 8, 512 * kKiB, m) == Approx(lat + 3 * 512 * kKiB / rate).epsilon(1e-6));
  // 2 GiB: chunk 128 KiB, loop 16 MiB.
  CHECK(nvls_seconds(topo, 8, 2048 * kMiB, m) == Approx(lat + (2048 * kMiB + 2 * 16 * kMiB) / rate).epsilon(1e-6));
  // Efficiency scales the fill with the payload.
  m.nvls_efficiency = 0.6;
  CHECK(nvls_seconds(topo, 8, 4 * kMiB, m) == Approx(lat + (8 * kMiB) / (0.6 * rate)).epsilon(1e-6));
}
