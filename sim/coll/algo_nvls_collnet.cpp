// NVLS + CollNet: NCCL's multi-node NVLS all-reduce, NVLink SHARP inside each server and InfiniBand SHARP
// across them (NCCL_ALGO_NVLS with nNodes > 1, which NCCL enables only where a CollNet plugin is: src/init.cc
// nvlsSupport with collNetSupport; src/device/all_reduce.h RunWorkColl<AllReduce, NVLS, Simple>, 2.19-2.27).
// Inside each server it is the one-node NVLS all-reduce (algo_nvls.cpp): every rank heads 1/L of the buffer
// (L GPUs per server) and loads its server's sum of it from the switch (multimem.ld_reduce); the head sends
// that sum into the fabric, whose switches add the servers' sums up an aggregation tree and multicast the
// total back (sharp_tree.hpp); the head stores the total through its NVSwitch (multimem.st), which
// multicasts it to the server's ranks. Data per GPU: NVLink S + S/L each way (as one-node NVLS); per head
// and link of the aggregation tree S/L each way, whatever the server count. Latency (tuning.cc 2.19-2.27):
// intraLat + interLat of NCCL's NVLS row (NVLink 25, network 18 us), Simple only; fill from the NVLS
// pipeline. Only across servers (NVLink domains) of the same GPU count, each with 3 or more GPUs on a common
// NVLS switch, joined by a fabric whose switches reduce (topology `fabric: {sharp: true}`).
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/nvls_support.hpp"
#include "sim/coll/sharp_tree.hpp"
#include "sim/core/assert.hpp"

namespace plansim {
namespace {

class NvlsCollNetAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "nvls_collnet"; }
  std::string_view description() const override {
    return "NVLS inside each server + in-network reduction across servers (NCCL NVLS multi-node with CollNet/SHARP, "
           "Simple)";
  }
  bool supports(CollOp op) const override { return op == CollOp::all_reduce; }
  LatencyClass latency_class() const override { return LatencyClass::nvls; }
  std::string_view requirement() const override {
    return "the same number (3 or more) of GPUs on a common NVLS switch in each of 2 or more servers, joined by a "
           "fabric whose switches reduce (topology fabric: {sharp: true})";
  }
  bool shape_ok(const GroupShape& g) const override { return g.uniform_hosts().size() >= 2; }
  bool applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const override {
    if (!supports(op)) return false;
    LoweringContext ctx{&topo, op, {ranks.begin(), ranks.end()}, Bytes(0), 0, 1};
    const auto hosts = ctx.shape().uniform_hosts();
    return nvls_in_every_server(topo, ranks, hosts) && fabric_reduces_between(topo, ranks, hosts);
  }

  // Participants: the ranks, one NVSwitch per server (n + h), one aggregation point per part (n + H + c).
  ChunkSchedule expand(CollOp /*op*/, const GroupShape& g) const override {
    const auto hosts = g.uniform_hosts();
    const int H = static_cast<int>(hosts.size()), L = H > 0 ? static_cast<int>(hosts.front().size()) : 0;
    ChunkSchedule s{g.n, g.n + H + L, std::max(1, L), {}};
    if (H < 2) return s;
    auto sw = [&](int h) { return g.n + h; };
    auto agg = [&](int c) { return g.n + H + c; };
    auto rank = [&](int h, int i) { return hosts[static_cast<size_t>(h)][static_cast<size_t>(i)]; };
    ChunkStep& up = s.add_step();  // every rank's parts reach its server's switch, which sums them
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < L; ++i)
        for (int c = 0; c < L; ++c) up.xfers.push_back({rank(h, i), sw(h), c, i != 0});
    ChunkStep& load = s.add_step();  // multimem.ld_reduce: head c gets its server's sum of part c
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < L; ++c) load.xfers.push_back({sw(h), rank(h, c), c, false});
    ChunkStep& net_up = s.add_step();  // the fabric adds the servers' sums of part c ...
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < L; ++c) net_up.xfers.push_back({rank(h, c), agg(c), c, h != 0});
    ChunkStep& net_down = s.add_step();  // ... and multicasts the total to every head of part c
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < L; ++c) net_down.xfers.push_back({agg(c), rank(h, c), c, false});
    ChunkStep& store = s.add_step();  // multimem.st: each head stores the total through its switch
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < L; ++c) store.xfers.push_back({rank(h, c), sw(h), c, false});
    ChunkStep& down = s.add_step();  // which multicasts it to the server's ranks
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < L; ++i)
        for (int c = 0; c < L; ++c) down.xfers.push_back({sw(h), rank(h, i), c, false});
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    const auto hosts = ctx.shape().uniform_hosts();
    const int H = static_cast<int>(hosts.size());
    PLANSIM_ASSERT(H >= 2, "nvls_collnet lowered on a group inside one server");
    const int L = static_cast<int>(hosts.front().size());
    PlannedPhase ph;
    Time nvls = Time::zero();
    for (const auto& h : hosts) {
      std::vector<GpuId> members;
      for (int r : h) members.push_back(ctx.ranks[static_cast<size_t>(r)]);
      const size_t first = ph.flows.size();
      append_nvls_flows(*ctx.topo, members, ctx.bytes, ph.flows);
      for (size_t i = first; i < ph.flows.size(); ++i) nvls = std::max(nvls, ph.flows[i].latency);
    }
    const size_t first = ph.flows.size();
    const Time tree = append_sharp_tree_flows(*ctx.topo, ctx.ranks, hosts, Bytes(ctx.bytes.value() / L), ph.flows);
    // The first bytes cross the NVLS load, the fabric up and down, and the NVLS store.
    for (size_t i = first; i < ph.flows.size(); ++i) ph.flows[i].latency = nvls + tree;
    plan.phases.push_back(std::move(ph));
    plan.steps_intra = 1;  // tuning.cc: intraLat + interLat
    plan.steps_inter = 1;
    plan.call_bytes = ctx.bytes;
    plan.nranks = ctx.n();
    plan.nnodes = H;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_nvls_collnet_algorithm() { return std::make_unique<NvlsCollNetAlgorithm>(); }

}  // namespace plansim
