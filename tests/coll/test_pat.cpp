// PAT (algo_pat.cpp): where NCCL runs it (all-gather and reduce-scatter, one GPU per server), the data it
// moves (every rank ends with exactly its data; per link what the expansion says; a rank sends (n-1)/n S in
// ceil(log2 n) steps, the far step carrying one block), its closed-form time, tuning.cc's latency and
// bandwidth factor, and `auto` choosing it for small sizes only.
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/coll/reference_executor.hpp"
#include "sim/coll/selection.hpp"
#include "coll_fixtures.hpp"

using namespace plansim;

namespace {
const AlgorithmRegistry& registry() {
  static const AlgorithmRegistry reg = make_default_registry();
  return reg;
}
const CollectiveAlgorithm& pat() { return *registry().find("pat"); }
Topology one_per_server(int hosts) { return test::cluster_topology(hosts, 1); }
GroupShape spread(int n) {
  GroupShape g{n, 0, {}};
  for (int r = 0; r < n; ++r) g.host_of_rank.push_back(r);
  return g;
}
FlowPlan lower(CollOp op, const Topology& topo, int n, double S) {
  return pat().lower(LoweringContext{&topo, op, test::first_gpus(n), Bytes(S), 0, 1});
}
int ceil_log2(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}
}  // namespace

TEST_CASE("pat: all-gather and reduce-scatter with one GPU per server only", "[coll]") {
  const auto& a = pat();
  CHECK(a.applicable(CollOp::all_gather, one_per_server(4), test::first_gpus(4)));
  CHECK(a.applicable(CollOp::reduce_scatter, one_per_server(3), test::first_gpus(3)));
  CHECK(a.applicable(CollOp::all_gather, one_per_server(4), test::first_gpus(2)));
  CHECK_FALSE(a.applicable(CollOp::all_reduce, one_per_server(4), test::first_gpus(4)));
  CHECK_FALSE(a.applicable(CollOp::all_gather, test::cluster_topology(2, 4), test::first_gpus(8)));  // 4 per server
  CHECK_FALSE(a.applicable(CollOp::all_gather, test::cluster_topology(1, 4), test::first_gpus(4)));  // one server
  CHECK_FALSE(a.applicable(CollOp::all_gather, one_per_server(4), test::first_gpus(1)));
  CHECK(a.in_auto(CollOp::all_gather));
  CHECK(a.in_auto(CollOp::reduce_scatter));
  CHECK(a.latency_class() == LatencyClass::pat);
  CHECK(a.requirement().find("NVLink domain) of its own") != std::string_view::npos);
}

TEST_CASE("pat: every rank ends with exactly its data (reference executor)", "[coll]") {
  for (CollOp op : {CollOp::all_gather, CollOp::reduce_scatter})
    for (int n = 2; n <= 17; ++n) {
      INFO(to_string(op) << " on " << n << " ranks");
      const ChunkSchedule s = pat().expand(op, spread(n));
      const ExecutionCheck res = run_reference(op, s, 0);
      INFO(res.error);
      CHECK(res.ok);
      CHECK(static_cast<int>(s.steps.size()) == ceil_log2(n));
      // Each rank sends n - 1 blocks in all, as a ring: (n-1)/n S.
      for (double sent : bytes_sent_per_participant(s, n * 1.0)) CHECK(sent == Approx(n - 1.0));
    }
}

TEST_CASE("pat: the far dimension carries one block, the near one about half of them", "[coll]") {
  const int n = 16;
  const ChunkSchedule ag = pat().expand(CollOp::all_gather, spread(n));
  // All-gather runs distance 8, 4, 2, 1: 1, 2, 4, 8 blocks per rank (reversed Bruck).
  const int distance[] = {8, 4, 2, 1}, blocks[] = {1, 2, 4, 8};
  for (size_t k = 0; k < ag.steps.size(); ++k) {
    INFO("step " << k);
    CHECK(static_cast<int>(ag.steps[k].xfers.size()) == n * blocks[k]);
    for (const ChunkXfer& x : ag.steps[k].xfers) CHECK((x.dst - x.src + n) % n == distance[k]);
  }
  // Reduce-scatter runs the trees upside down: distance 1 first with 8 blocks, distance 8 last with 1.
  const ChunkSchedule rs = pat().expand(CollOp::reduce_scatter, spread(n));
  CHECK(rs.steps.front().xfers.size() == static_cast<size_t>(n * 8));
  CHECK(rs.steps.back().xfers.size() == static_cast<size_t>(n));
  for (const ChunkXfer& x : rs.steps.back().xfers) CHECK((x.src - x.dst + n) % n == 8);
}

TEST_CASE("pat: per-link bytes of the plan equal the expansion's", "[coll]") {
  for (CollOp op : {CollOp::all_gather, CollOp::reduce_scatter})
    for (int n : {2, 3, 5, 8, 12}) {
      const Topology topo = one_per_server(n);
      const auto ranks = test::first_gpus(n);
      const double S = 6e6;
      const ChunkSchedule s = pat().expand(op, spread(n));
      std::vector<double> want(topo.links().size(), 0.0);
      for (const ChunkStep& st : s.steps)
        for (const ChunkXfer& x : st.xfers) {
          std::vector<LinkId> route;
          append_route(topo, ranks[static_cast<size_t>(x.src)], ranks[static_cast<size_t>(x.dst)], route);
          for (LinkId l : route) want[l.index()] += s.chunk_bytes(S);
        }
      const FlowPlan plan = lower(op, topo, n, S);
      CHECK(plan.steps_inter == ceil_log2(n));
      CHECK(plan.steps_intra == 0);
      CHECK(plan.nnodes == n);
      const auto got = plan.link_bytes(topo.links().size());
      INFO(to_string(op) << " on " << n);
      for (size_t l = 0; l < got.size(); ++l) {
        INFO("link " << l);
        CHECK(got[l] == Approx(want[l]).margin(1e-3));
      }
    }
}

TEST_CASE("pat closed form: (n-1)/n S through each NIC in ceil(log2 n) steps", "[coll]") {
  // Ideal model, one 50 GB/s NIC per server: every step's flows use distinct NIC links each way, so a step
  // costs its route (GPU-NVSwitch-NIC-leaf-NIC-NVSwitch-GPU: 0.2 + 0.1 + 0.5 + 0.5 + 0.1 + 0.2 = 1.6 us) plus
  // its blocks over 50 GB/s; in all L x 1.6 us + (n-1)/n S / 50 GB/s.
  const double S = 1e9, route = 1.6e-6, nic = 50e9;
  for (int n : {4, 5, 16}) {
    const Topology topo = one_per_server(n);
    const int L = ceil_log2(n);
    for (CollOp op : {CollOp::all_gather, CollOp::reduce_scatter}) {
      INFO(to_string(op) << " on " << n);
      const FlowPlan plan = lower(op, topo, n, S);
      CHECK(plan_route_latency(plan).seconds() == Approx(L * route));
      const double ideal = predict_time(NcclModelParams::ideal(), LatencyClass::pat, Protocol::simple, plan, topo,
                                        HwKind::nvlink)
                               .seconds();
      CHECK(ideal == Approx(L * route + (n - 1.0) / n * S / nic).epsilon(1e-9));
      // NCCL's PAT bandwidth factor (tuning.cc "busBw *= .75") scales every PAT flow.
      NcclModelParams m = NcclModelParams::ideal();
      m.pat_efficiency = 0.75;
      CHECK(predict_time(m, LatencyClass::pat, Protocol::simple, plan, topo, HwKind::nvlink).seconds() ==
            Approx(L * route + (n - 1.0) / n * S / (0.75 * nic)).epsilon(1e-9));
    }
  }
  CHECK(NcclModelParams{}.pat_efficiency == 0.75);
}

TEST_CASE("pat latency: tuning.cc's 8 + log2i(nNodes) interLat / 3.5 + nRanks x 2.8, Simple only", "[coll]") {
  NcclModelParams m;
  m.device_latency_us = 0;
  const auto c = LatencyClass::pat;
  CHECK_FALSE(m.protocol_enabled(c, Protocol::ll));
  CHECK_FALSE(m.protocol_enabled(c, Protocol::ll128));
  CHECK(m.protocol_enabled(c, Protocol::simple));
  // interLat: the tree's network Simple row (14 us) with one GPU per server; log2i rounds down (5 -> 2).
  for (auto [n, log2i] : {std::pair{16, 4}, std::pair{5, 2}, std::pair{2, 1}}) {
    INFO(n << " servers");
    const FlowPlan plan = lower(CollOp::all_gather, one_per_server(n), n, 1e6);
    CHECK(software_latency(m, c, Protocol::simple, plan, HwKind::nvlink).micros() ==
          Approx(8.0 + log2i * 14.0 / 3.5 + n * 2.8 - plan_route_latency(plan).micros()));
  }
  // A transport's own latency (graph latencyInter, e.g. EFA's 35 us) enters interLat twice with Simple.
  m.net_latency_us = 35.0;
  const FlowPlan plan = lower(CollOp::reduce_scatter, one_per_server(16), 16, 1e6);
  CHECK(software_latency(m, c, Protocol::simple, plan, HwKind::nvlink).micros() ==
        Approx(8.0 + 4 * (14.0 + 70.0) / 3.5 + 16 * 2.8 - plan_route_latency(plan).micros()));
}

TEST_CASE("pat in auto: small all-gathers at one GPU per server, a ring for large ones", "[coll]") {
  const Topology topo = one_per_server(16);
  const NcclModelParams m;
  auto choose = [&](CollOp op, double S) {
    return std::string(choose_collective(registry(), m, topo, {op, test::first_gpus(16), Bytes(S), 0, "auto"})
                           .algorithm->name());
  };
  for (CollOp op : {CollOp::all_gather, CollOp::reduce_scatter}) {
    INFO(to_string(op));
    CHECK(choose(op, 64e3) == "pat");
    CHECK(choose(op, 1e9) == "ring");
  }
  // With 4 GPUs per server NCCL does not enable it: never chosen, and naming it is an error.
  const Topology four = test::cluster_topology(4, 4);
  CHECK(std::string(choose_collective(registry(), m, four, {CollOp::all_gather, test::first_gpus(16), Bytes(64e3), 0, "auto"})
                        .algorithm->name()) != "pat");
  CHECK_THROWS(choose_collective(registry(), m, four, {CollOp::all_gather, test::first_gpus(16), Bytes(64e3), 0, "pat"}));
}

TEST_CASE("pat lower bound: never above the predicted time, so auto's skipping it is exact", "[coll]") {
  NcclModelParams m;
  m.device_latency_us = 0;
  for (int n : {2, 5, 16}) {
    const Topology topo = one_per_server(n);
    for (CollOp op : {CollOp::all_gather, CollOp::reduce_scatter})
      for (double S : {1e3, 1e6, 64e6, 1e9}) {
        INFO(to_string(op) << " on " << n << ", " << S << " B");
        const LoweringContext ctx{&topo, op, test::first_gpus(n), Bytes(S), 0, 1};
        const Time bound = pat().time_lower_bound(ctx, m);
        const Time t = predict_time(m, LatencyClass::pat, Protocol::simple, pat().lower(ctx), topo, HwKind::nvlink);
        CHECK(bound <= t);
        // At large sizes the bound is the NIC time of the bytes at the best link efficiency (1, `other`; the
        // NIC's is 0.94): within that factor and the latency of the prediction.
        if (S >= 1e9) CHECK(bound.seconds() > 0.93 * t.seconds());
      }
  }
}
