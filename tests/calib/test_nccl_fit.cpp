// The NCCL-model fit of `plansim calibrate --topology` recovers the efficiency and per-call latencies that
// generated its data, and refuses rows it cannot model.
#include <catch2/catch.hpp>

#include "sim/calib/nccl_fit.hpp"
#include "sim/coll/measure.hpp"
#include "sim/core/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/net/flow_network.hpp"
#include "../coll/coll_fixtures.hpp"

using namespace plansim;

namespace {
calib::Measurements synthetic(const Topology& topo, const NcclModelParams& truth, int n, const char* file) {
  calib::Measurements m;
  m.sources = {file};
  for (double s = 65536; s <= 1 << 30; s *= 4) {
    calib::CollectiveSample c;
    c.op = "all_reduce";
    c.algorithm = "auto";
    c.nranks = n;
    c.size_bytes = s;
    c.busbw_factor = busbw_factor(CollOp::all_reduce, n);
    c.time_s = measure_collective(topo, truth, CollOp::all_reduce, n, Bytes(s)).time.seconds();
    c.pos = SourcePos{file, 1, 1};
    m.collectives.push_back(c);
  }
  return m;
}

// 4-GPU all-reduces 64 KiB-1 GiB timed by `truth`, one table per entry of `loops`, each row's file named after
// the loop that timed it (torch.json, nccl.json).
calib::Measurements by_loop(const Topology& topo, const NcclModelParams& truth, std::initializer_list<BenchHarness> loops) {
  calib::Measurements m;
  m.sources = {"torch.json", "nccl.json"};
  for (const BenchHarness h : loops) {
    for (double s = 65536; s <= 1 << 30; s *= 4) {
      calib::CollectiveSample c;
      c.op = "all_reduce";
      c.algorithm = "auto";
      c.nranks = 4;
      c.size_bytes = s;
      c.busbw_factor = busbw_factor(CollOp::all_reduce, 4);
      c.time_s = measure_collective(topo, truth, CollOp::all_reduce, 4, Bytes(s), "auto", "auto", h).time.seconds();
      c.harness = h;
      c.pos = SourcePos{h == BenchHarness::torch ? "torch.json" : "nccl.json", 1, 1};
      m.collectives.push_back(c);
    }
  }
  return m;
}
}  // namespace

TEST_CASE("nccl fit: across servers it recovers the network efficiency and NCCL's per-network-step latency", "[calib][coll]") {
  const Topology topo = test::cluster_topology(2, 4);
  NcclModelParams truth;
  truth.network_efficiency = 0.7;
  truth.net_latency_us = 12.0;  // the net plugin's latency (tuning.cc latencyInter), per network step
  const calib::Measurements m = synthetic(topo, truth, 8, "a.json");
  const calib::NcclFit f = calib::fit_nccl_model(m, topo, NcclModelParams{});
  CHECK(f.efficiency_key == "network");
  CHECK(f.fits_net_latency);
  CHECK(f.efficiency == Approx(0.7));
  CHECK(f.net_latency_us == Approx(12.0).margin(0.05));
  CHECK(f.device_latency_us == 0);  // not fitted across servers: the start profile's
  CHECK(f.launch_overhead_us == 0);  // no floor in the data: not identified, left at 0
  CHECK(f.launch_bound_rows == 0);
  CHECK(f.loo_by == "sample");
  for (const auto& r : f.residuals) {
    CHECK(r.predicted_s == Approx(r.sample->time_s).epsilon(1e-3));
    CHECK(r.loo_predicted_s == Approx(r.sample->time_s).epsilon(1e-3));
  }
  const std::string yaml = calib::nccl_fit_profile_yaml(f, m, "t.yaml", {"H100"});
  CHECK_THAT(yaml, Catch::Contains("network: 0.70") && Catch::Contains("net_latency: 12.0") &&
                       Catch::Contains("device_latency: 0.00"));
}

TEST_CASE("nccl fit: a network step latency fitted on 2 servers predicts 4 (it scales with the 2 nNodes steps)", "[calib][coll]") {
  NcclModelParams truth;
  truth.network_efficiency = 0.8;
  truth.net_latency_us = 20.0;
  const Topology two = test::cluster_topology(2, 4);
  const calib::NcclFit f = calib::fit_nccl_model(synthetic(two, truth, 8, "a.json"), two, NcclModelParams{});
  REQUIRE(f.net_latency_us == Approx(20.0).margin(0.05));
  const Topology four = test::cluster_topology(4, 4);
  for (double s : {1048576.0, 16.0 * 1048576}) {
    const double want = measure_collective(four, truth, CollOp::all_reduce, 16, Bytes(s)).time.seconds();
    CHECK(measure_collective(four, f.params, CollOp::all_reduce, 16, Bytes(s)).time.seconds() ==
          Approx(want).epsilon(2e-3));
  }
  // A per-call constant fitted to the same 2-server rows would not: 4 servers have 8 network steps, not 4.
  NcclModelParams as_device = f.params;
  as_device.net_latency_us = 0;
  as_device.device_latency_us =
      (measure_collective(two, f.params, CollOp::all_reduce, 8, Bytes(1048576)).time -
       measure_collective(two, as_device, CollOp::all_reduce, 8, Bytes(1048576)).time).micros();
  CHECK(measure_collective(four, as_device, CollOp::all_reduce, 16, Bytes(1048576)).time.seconds() <
        0.9 * measure_collective(four, truth, CollOp::all_reduce, 16, Bytes(1048576)).time.seconds());
}

TEST_CASE("nccl fit: one group inside an NVLink server fits the NVLink efficiency; folds by file", "[calib][coll]") {
  const Topology topo = test::cluster_topology(1, 8);
  NcclModelParams truth;
  truth.nvlink_efficiency = 0.6;
  calib::Measurements m = synthetic(topo, truth, 8, "a.json");
  const calib::Measurements m2 = synthetic(topo, truth, 4, "b.json");
  m.collectives.insert(m.collectives.end(), m2.collectives.begin(), m2.collectives.end());
  const calib::NcclFit f = calib::fit_nccl_model(m, topo, NcclModelParams{});
  CHECK(f.efficiency_key == "nvlink");
  CHECK(f.efficiency == Approx(0.6));
  CHECK(f.loo_by == "file");
}

TEST_CASE("nccl fit: one server's rows and spanning rows together fit in two stages: NVLink, then the network", "[calib][coll]") {
  const Topology topo = test::cluster_topology(2, 4);
  NcclModelParams truth;
  truth.nvlink_efficiency = 0.6;
  truth.device_latency_us = 5.0;
  truth.network_efficiency = 0.7;
  truth.net_latency_us = 12.0;
  calib::Measurements m = synthetic(topo, truth, 4, "one_server.json");
  const calib::Measurements across = synthetic(topo, truth, 8, "two_servers.json");
  m.collectives.insert(m.collectives.end(), across.collectives.begin(), across.collectives.end());
  const calib::NcclFit f = calib::fit_nccl_model(m, topo, NcclModelParams{});
  CHECK(f.efficiency_key == "nvlink");
  CHECK(f.efficiency == Approx(0.6));
  CHECK(f.device_latency_us == Approx(5.0).margin(0.05));
  REQUIRE(f.network);
  CHECK(f.network->efficiency == Approx(0.7));
  CHECK(f.network->net_latency_us == Approx(12.0).margin(0.05));
  CHECK(f.params.nvlink_efficiency == Approx(0.6));
  CHECK(f.params.network_efficiency == Approx(0.7));
  CHECK(f.loo_by == "file");
  REQUIRE(f.residuals.size() == m.collectives.size());
  for (size_t i = 0; i < f.residuals.size(); ++i) {
    CHECK(f.residuals[i].sample == &m.collectives[i]);  // the input's order
    CHECK(f.residuals[i].predicted_s == Approx(m.collectives[i].time_s).epsilon(1e-3));
  }
  // The spanning table left out: predicted from the server stage alone, with the network at `start`
  // (efficiency 1, no step latency), so faster than measured: the error the report prints, not hidden.
  for (const auto& r : f.residuals)
    if (r.sample->nranks == 8) CHECK(r.loo_predicted_s < r.sample->time_s);
  CHECK_THAT(calib::format_nccl_fit(f), Catch::Contains("network efficiency 0.70"));
}

TEST_CASE("nccl fit: unknown algorithms, too many ranks and no rows are errors at the row", "[calib][coll]") {
  const Topology topo = test::cluster_topology(1, 4);
  calib::Measurements m = synthetic(topo, NcclModelParams{}, 4, "a.json");
  m.collectives[1].algorithm = "spiral";
  m.collectives[1].pos = SourcePos{"a.json", 7, 3};
  CHECK_THROWS_WITH(calib::fit_nccl_model(m, topo, NcclModelParams{}), Catch::Contains("a.json:7:3") && Catch::Contains("spiral"));
  m.collectives[1].algorithm = "ring";
  m.collectives[2].nranks = 9;
  CHECK_THROWS_WITH(calib::fit_nccl_model(m, topo, NcclModelParams{}), Catch::Contains("9 ranks"));
  CHECK_THROWS_AS(calib::fit_nccl_model(calib::Measurements{}, topo, NcclModelParams{}), ConfigError);
}

TEST_CASE("nccl fit: a benchmark floor and a device latency are told apart", "[calib][coll]") {
  // Small rows sit on the host's launch floor (time = launch), larger ones pay model + device latency:
  // both are identified, and the floor binds the rows below it.
  const Topology topo = test::cluster_topology(1, 4);
  NcclModelParams truth;
  truth.device_latency_us = 5.0;
  truth.launch_overhead_us = 60.0;
  const calib::Measurements m = synthetic(topo, truth, 4, "a.json");
  const calib::NcclFit f = calib::fit_nccl_model(m, topo, NcclModelParams{});
  CHECK(f.device_latency_us == Approx(5.0).margin(0.05));
  CHECK(f.launch_overhead_us == Approx(60.0).margin(0.05));
  CHECK(f.launch_bound_rows >= 1);
  CHECK(f.params.launch_overhead_us == Approx(60.0).margin(0.05));
}

TEST_CASE("launch overhead floors a benchmark call (measure_collective), device latency adds", "[calib][coll]") {
  const Topology topo = test::cluster_topology(1, 4);
  NcclModelParams p;
  const double bare = measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(4096)).time.micros();
  p.launch_overhead_us = bare + 100;
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(4096)).time.micros() == Approx(bare + 100));
  p.launch_overhead_us = 0.5 * bare;  // below the device time: no effect
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(4096)).time.micros() == Approx(bare));
  p.device_latency_us = 7;
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(4096)).time.micros() == Approx(bare + 7).epsilon(1e-6));
}

TEST_CASE("a launch floor bounds only the loop it was measured under", "[calib][coll]") {
  const Topology topo = test::cluster_topology(1, 4);
  NcclModelParams p;
  const double bare = measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(4096)).time.micros();
  p.launch_overhead_us = bare + 100;
  p.launch_overhead_harness = BenchHarness::torch;
  // nccl-tests' loop (the default) is not bound by a torch loop's floor; the torch loop is.
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(4096)).time.micros() == Approx(bare));
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(4096), "auto", "auto", BenchHarness::torch)
            .time.micros() == Approx(bare + 100));
}

TEST_CASE("nccl fit: a torch loop's floor is fitted on its rows and applied to them only", "[calib][coll]") {
  // Two tables of the same system: a torch sweep on a 60 us floor, and nccl-tests rows with no floor.
  // The fit finds the floor, says it is the torch loop's, and predicts the nccl-tests rows without it.
  const Topology topo = test::cluster_topology(1, 4);
  NcclModelParams truth;
  truth.device_latency_us = 5.0;
  truth.launch_overhead_us = 60.0;
  truth.launch_overhead_harness = BenchHarness::torch;
  const calib::Measurements m =
      by_loop(topo, truth, {BenchHarness::torch, BenchHarness::torch, BenchHarness::nccl_tests});
  const calib::NcclFit f = calib::fit_nccl_model(m, topo, NcclModelParams{});
  CHECK(f.params.launch_overhead_harness == BenchHarness::torch);
  CHECK(f.launch_overhead_us == Approx(60.0).margin(0.05));
  CHECK(f.device_latency_us == Approx(5.0).margin(0.05));
  for (const auto& r : f.residuals)
    CHECK(r.predicted_s == Approx(r.sample->time_s).epsilon(0.01));  // the nccl-tests rows below the floor too

  // The floor on the loop with fewer rows (nccl-tests here) is found too: with rows of both loops the fit
  // tries the floor on each.
  truth.launch_overhead_harness = BenchHarness::nccl_tests;
  const calib::Measurements n =
      by_loop(topo, truth, {BenchHarness::torch, BenchHarness::torch, BenchHarness::nccl_tests});
  const calib::NcclFit g = calib::fit_nccl_model(n, topo, NcclModelParams{});
  CHECK(g.params.launch_overhead_harness == BenchHarness::nccl_tests);
  CHECK(g.launch_overhead_us == Approx(60.0).margin(0.05));
  for (const auto& r : g.residuals) CHECK(r.predicted_s == Approx(r.sample->time_s).epsilon(0.01));
}

TEST_CASE("a torch loop's per-call host cost adds to its timings only, under its floor", "[calib][coll]") {
  const Topology topo = test::cluster_topology(1, 4);
  NcclModelParams p;
  const double bare = measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(1 << 20)).time.micros();
  p.torch_loop_overhead_us = 12;
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(1 << 20)).time.micros() == Approx(bare));
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(1 << 20), "auto", "auto", BenchHarness::torch)
            .time.micros() == Approx(bare + 12));
  p.launch_overhead_us = bare + 20;  // a torch floor above device time + host cost binds
  p.launch_overhead_harness = BenchHarness::torch;
  CHECK(measure_collective(topo, p, CollOp::all_reduce, 4, Bytes(1 << 20), "auto", "auto", BenchHarness::torch)
            .time.micros() == Approx(bare + 20));
  // A training run's collective (no benchmark loop) pays neither.
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, p);
  CollectiveCall call;
  call.op = CollOp::all_reduce;
  for (int i = 0; i < 4; ++i) call.ranks.push_back(GpuId::from(i));
  call.bytes = Bytes(1 << 20);
  double took = 0;
  runner.start(call, [&](const CollectiveResult& r) { took = (r.end - r.start).micros(); });
  sim.run();
  CHECK(took == Approx(bare));
}

TEST_CASE("nccl fit: a torch loop's per-call cost is told apart from the device latency by the other loop's rows", "[calib][coll]") {
  const Topology topo = test::cluster_topology(1, 4);
  NcclModelParams truth;
  truth.device_latency_us = 4.0;
  truth.torch_loop_overhead_us = 15.0;
  // Kept alive: the fit's residuals point into it.
  const calib::Measurements both = by_loop(topo, truth, {BenchHarness::torch, BenchHarness::nccl_tests});
  const calib::NcclFit f = calib::fit_nccl_model(both, topo, NcclModelParams{});
  CHECK(f.torch_overhead_fitted);
  CHECK(f.device_latency_us == Approx(4.0).margin(0.05));
  CHECK(f.torch_loop_overhead_us == Approx(15.0).margin(0.05));
  CHECK(f.params.torch_loop_overhead_us == Approx(15.0).margin(0.05));
  for (const auto& r : f.residuals) CHECK(r.predicted_s == Approx(r.sample->time_s).epsilon(1e-3));
  CHECK_THAT(calib::format_nccl_fit(f), Catch::Contains("torch loop overhead 15.0"));

  // A torch sweep alone cannot separate them: the cost stays at the start profile's, the device latency
  // takes the rest.
  NcclModelParams start;
  start.torch_loop_overhead_us = 10.0;
  const calib::Measurements torch_only = by_loop(topo, truth, {BenchHarness::torch});
  const calib::NcclFit alone = calib::fit_nccl_model(torch_only, topo, start);
  CHECK_FALSE(alone.torch_overhead_fitted);
  CHECK(alone.torch_loop_overhead_us == Approx(10.0));
  CHECK(alone.device_latency_us == Approx(9.0).margin(0.05));
}
