// CollectiveRunner::renamed_send_recv_route and renamed_links (DP folding's shortcut for replicas' calls, plan/runner_comm.cpp)
// against the uncached path: wherever it names a route for a send/recv, preparing that send/recv gives the
// same choice, latencies, bytes and caps as the reference call, with its links those of the route, paired
// position by position (what same_shape() checks), and the same lower bound.
#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "coll_fixtures.hpp"
#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/io/topology_loader.hpp"
#include "sim/net/flow_network.hpp"
#include "tests/support/fat_tree.hpp"

using namespace plansim;

namespace {

struct Tally {
  size_t renamed = 0, refused = 0;
};

// Every pair of sample send/recvs (a -> b with a's bytes and requests as the reference, c -> d as the
// other): where the shortcut answers, the prepared c -> d is the reference renamed onto the answer.
Tally check_pairs(const Topology& topo, const std::vector<std::pair<int, int>>& sample, const std::string& protocol,
                  double bytes) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, NcclModelParams{});
  runner.reuse_renamings(false);  // the reference: every call chosen and lowered anew
  Tally t;
  auto call = [&](int a, int b) {
    return CollectiveCall{CollOp::send_recv, {GpuId::from(static_cast<size_t>(a)), GpuId::from(static_cast<size_t>(b))},
                          Bytes(bytes), 0, "auto", protocol};
  };
  for (const auto& [a, b] : sample) {
    const PreparedCall ref = runner.prepare(call(a, b));
    for (const auto& [c, d] : sample) {
      INFO(topo.name() << ": " << a << " -> " << b << " renamed onto " << c << " -> " << d);
      const auto route = runner.renamed_send_recv_route(ref, GpuId::from(static_cast<size_t>(c)),
                                                        GpuId::from(static_cast<size_t>(d)));
      if (!route) {
        ++t.refused;
        continue;
      }
      ++t.renamed;
      const PreparedCall other = runner.prepare(call(c, d));
      const std::span<const LinkId> real = topo.route(GpuId::from(static_cast<size_t>(c)), GpuId::from(static_cast<size_t>(d)));
      CHECK(std::equal(route->begin(), route->end(), real.begin(), real.end()));
      const std::span<const LinkId> mine = topo.route(GpuId::from(static_cast<size_t>(a)), GpuId::from(static_cast<size_t>(b)));
      size_t position = 0;
      const bool same = runner.same_shape(ref, other, [&](LinkId x, LinkId y) {
        const bool ok = position < route->size() && x == mine[position] && y == (*route)[position];
        ++position;
        return ok;
      });
      CHECK(same);
      CHECK(position == route->size());
      CHECK(runner.algorithm(ref) == runner.algorithm(other));
      CHECK(runner.protocol(ref) == runner.protocol(other));
      CHECK(runner.lower_bound(ref) == runner.lower_bound(other));
    }
  }
  return t;
}

std::vector<std::pair<int, int>> sample_pairs(int gpus, int step) {
  std::vector<std::pair<int, int>> out;
  for (int a = 0; a < gpus; a += step)
    for (int b = 0; b < gpus; b += step)
      if (a != b) out.emplace_back(a, b);
  return out;
}

}  // namespace

TEST_CASE("renamed send/recv: the shortcut's route gives the prepared call's renaming, on shipped topologies",
          "[coll][symmetry]") {
  for (const auto& [file, nodes, step] : std::vector<std::tuple<std::string, int, int>>{
           {"llama3-cluster.yaml", 6, 5}, {"dgx-h100.yaml", 4, 3}, {"ethernet-h100.yaml", 4, 3},
           {"pcie-8gpu.yaml", 1, 1}, {"gb200-nvl72.yaml", 36, 13}}) {
    const Topology topo = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/" + file, nodes);
    for (const std::string protocol : {"auto", "Simple"})
      for (const double bytes : {8.0, 64e6}) {
        const Tally t = check_pairs(topo, sample_pairs(static_cast<int>(topo.num_gpus()), step), protocol, bytes);
        INFO(file << " " << protocol << " " << bytes);
        CHECK(t.renamed > 0);  // the shortcut is taken ...
        if (file != "pcie-8gpu.yaml") CHECK(t.refused > 0);  // ... and refused where the routes differ
      }
  }
}

TEST_CASE("renamed send/recv: hashed fabrics, server sharing and non-send/recv calls", "[coll][symmetry]") {
  // A hashed two-tier fabric: routes of the same length through different spines are renamings.
  const Topology tree = testing::small_fat_tree();
  const Tally t = check_pairs(tree, sample_pairs(16, 1), "auto", 1e6);
  CHECK(t.renamed > 0);
  CHECK(t.refused > 0);

  // Two GPUs of one server never stand for two of different servers (the protocol choice reads it).
  const Topology c = test::cluster_topology(2, 4);
  Simulation sim;
  FlowNetwork net(sim, c);
  CollectiveRunner runner(net, NcclModelParams{});
  const PreparedCall local = runner.prepare({CollOp::send_recv, {GpuId(0), GpuId(1)}, Bytes(1e6)});
  CHECK(runner.renamed_send_recv_route(local, GpuId(4), GpuId(5)).has_value());
  CHECK_FALSE(runner.renamed_send_recv_route(local, GpuId(0), GpuId(4)).has_value());
  CHECK_FALSE(runner.renamed_send_recv_route(local, GpuId(2), GpuId(2)).has_value());
  CHECK_FALSE(runner.renamed_send_recv_route(local, GpuId(0), GpuId(99)).has_value());
  // Only send/recvs: an all-reduce of two ranks is not renamed by this shortcut.
  const PreparedCall reduce = runner.prepare({CollOp::all_reduce, {GpuId(0), GpuId(1)}, Bytes(1e6)});
  CHECK_FALSE(runner.renamed_send_recv_route(reduce, GpuId(4), GpuId(5)).has_value());
}

namespace {

// Groups of `n` ranks `stride` apart starting at every `step`-th GPU, as the reference (first) and as
// the others: where renamed_links answers, the prepared other group is the reference with its links
// renamed to the answer, position by position.
Tally check_groups(const Topology& topo, CollOp op, int n, int stride, int step, double bytes) {
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner runner(net, NcclModelParams{});
  runner.reuse_renamings(false);  // the reference: every call chosen and lowered anew
  Tally t;
  auto group = [&](int first) {
    std::vector<GpuId> g;
    for (int i = 0; i < n; ++i) g.push_back(GpuId::from(static_cast<size_t>((first + i * stride) % static_cast<int>(topo.num_gpus()))));
    return g;
  };
  std::vector<LinkId> renamed;
  for (int a = 0; a < static_cast<int>(topo.num_gpus()); a += step) {
    const PreparedCall ref = runner.prepare({op, group(a), Bytes(bytes)});
    for (int b = 0; b < static_cast<int>(topo.num_gpus()); b += step) {
      INFO(topo.name() << ": " << to_string(op) << " of " << n << " ranks " << stride << " apart from GPU " << a
                       << " renamed onto those from GPU " << b);
      const std::vector<GpuId> other_ranks = group(b);
      if (!runner.renamed_links(ref, other_ranks, renamed)) {
        ++t.refused;
        continue;
      }
      ++t.renamed;
      const PreparedCall other = runner.prepare({op, other_ranks, Bytes(bytes)});
      size_t position = 0;
      std::vector<LinkId> mine;
      runner.for_each_flow_links(ref, [&](std::span<const LinkId> links) { mine.insert(mine.end(), links.begin(), links.end()); });
      const bool same = runner.same_shape(ref, other, [&](LinkId x, LinkId y) {
        const bool ok = position < renamed.size() && x == mine[position] && y == renamed[position];
        ++position;
        return ok;
      });
      CHECK(same);
      CHECK(position == renamed.size());
      CHECK(runner.algorithm(ref) == runner.algorithm(other));
      CHECK(runner.protocol(ref) == runner.protocol(other));
      CHECK(runner.lower_bound(ref) == runner.lower_bound(other));
    }
  }
  return t;
}

}  // namespace

TEST_CASE("renamed collectives: renamed_links gives the prepared call's renaming, on shipped topologies",
          "[coll][symmetry]") {
  const Topology llama = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/llama3-cluster.yaml", 8);
  const Topology dgx = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/dgx-h100.yaml", 4);
  const Topology tree = testing::small_fat_tree();
  for (const CollOp op : {CollOp::all_reduce, CollOp::all_gather, CollOp::reduce_scatter, CollOp::all_to_all})
    for (const double bytes : {8.0, 256e6}) {
      // One rank per server, as a pipeline group; two per server; 2 + 2 across DGX servers; a hashed fabric.
      for (const Tally t : {check_groups(llama, op, 4, 16, 3, bytes), check_groups(llama, op, 4, 4, 5, bytes),
                            check_groups(dgx, op, 4, 1, 2, bytes), check_groups(tree, op, 4, 4, 1, bytes)})
        CHECK(t.renamed > 0);
      // A whole DGX server, or 4 + 4 GPUs of two: an all-reduce there may run NVLS / NVLS-Tree, which read
      // the switches (not routes), so it is never renamed; all-gather / reduce-scatter are.
      const Tally whole = check_groups(dgx, op, 8, 1, 4, bytes);
      if (op == CollOp::all_reduce) CHECK(whole.renamed == 0);
      else CHECK(whole.renamed > 0);
      CHECK(check_groups(llama, op, 4, 4, 5, bytes).refused > 0);  // servers shared differently
    }
  // NVLS applies inside an NVL72 domain: never renamed (its switch reads are not routes).
  const Topology nvl = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/gb200-nvl72.yaml", 36);
  const Tally t = check_groups(nvl, CollOp::all_reduce, 4, 1, 36, 1e6);
  CHECK(t.renamed == 0);
  CHECK(t.refused > 0);
  // Broadcast can run as a chain, whose reads are not audited here: refused.
  CHECK(check_groups(dgx, CollOp::broadcast, 4, 8, 8, 1e6).renamed == 0);
}

TEST_CASE("renamed collectives: prepare() reusing renamings gives what preparing anew gives", "[coll][symmetry]") {
  const Topology topo = load_topology(std::string(PLANSIM_SOURCE_DIR) + "/topologies/llama3-cluster.yaml", 8);
  Simulation sim;
  FlowNetwork net(sim, topo);
  CollectiveRunner reusing(net, NcclModelParams{});
  CollectiveRunner fresh(net, NcclModelParams{});
  fresh.reuse_renamings(false);
  size_t calls = 0;
  for (const CollOp op : {CollOp::all_reduce, CollOp::all_gather, CollOp::send_recv})
    for (const int stride : {1, 4, 8, 9})
      for (int first = 0; first < 64; first += 3) {
        std::vector<GpuId> ranks;
        for (int i = 0; i < (op == CollOp::send_recv ? 2 : 4); ++i) ranks.push_back(GpuId::from(static_cast<size_t>((first + i * stride) % 64)));
        const CollectiveCall call{op, ranks, Bytes(4e6)};
        const PreparedCall a = reusing.prepare(call), b = fresh.prepare(call);
        INFO(to_string(op) << " from GPU " << first << ", stride " << stride);
        std::vector<LinkId> la, lb;
        reusing.for_each_flow_links(a, [&](std::span<const LinkId> l) { la.insert(la.end(), l.begin(), l.end()); });
        fresh.for_each_flow_links(b, [&](std::span<const LinkId> l) { lb.insert(lb.end(), l.begin(), l.end()); });
        CHECK(la == lb);
        CHECK(reusing.algorithm(a) == fresh.algorithm(b));
        CHECK(reusing.protocol(a) == fresh.protocol(b));
        CHECK(reusing.lower_bound(a) == fresh.lower_bound(b));
        ++calls;
      }
  CHECK(calls > 100);
  // The same runs, one from each: equal times.
  for (const int first : {0, 8, 15}) {
    const CollectiveCall call{CollOp::all_reduce, {GpuId::from(static_cast<size_t>(first)), GpuId::from(static_cast<size_t>(first + 16)),
                                                   GpuId::from(static_cast<size_t>(first + 32)), GpuId::from(static_cast<size_t>(first + 48))},
                              Bytes(64e6)};
    Time ta, tb;
    reusing.start(call, [&](const CollectiveResult& r) { ta = r.end - r.start; });
    sim.run();
    fresh.start(call, [&](const CollectiveResult& r) { tb = r.end - r.start; });
    sim.run();
    CHECK(ta == tb);
  }
}
