// CollNet Direct: NCCL's all-reduce with in-network reduction across servers (NCCL_ALGO_COLLNET_DIRECT over a
// CollNet plugin such as NVIDIA's SHARP one; src/device/all_reduce.h RunWorkColl<AllReduce, COLLNET_DIRECT,
// Simple>, 2.19-2.27). Inside each server every rank is the head of 1/L of the buffer (L GPUs per server:
// NCCL's heads are the GPUs with a NIC; here each GPU is one, and GPUs sharing a NIC share its load):
//   scatter: each rank sends its 1/L share of every other head's part straight to that head, which adds them;
//   up:      each head sends its server's partial sum (S/L) into the fabric, whose switches add the servers'
//            sums on the way up an aggregation tree (SHARP) ...
//   down:    ... and multicast the total back down to the same heads;
//   gather:  each head sends the total of its part straight to the other ranks of its server.
// Data per GPU: S (L-1)/L out and in over the server's links (scatter, gather); per head and network link
// of the aggregation tree S/L up and S/L down, however many servers there are (the switches reduce): a
// server's NICs move S each way, where a ring's move 2 (N-1)/N S. Every stage streams in chunks, so the
// flows run as one pipelined phase. The tree is the union of the routes between one server's head and the
// others' (each of its links carries the part once each way). NCCL runs it only where the fabric reduces
// (topology `fabric: {sharp: true}`), Simple only; its latency and its bandwidth factor are tuning.cc's
// (nccl_model.hpp, LatencyClass::collnet).
#include <algorithm>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/sharp_tree.hpp"
#include "sim/core/assert.hpp"

namespace plansim {
namespace {

class CollNetDirectAlgorithm final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "collnet_direct"; }
  std::string_view description() const override {
    return "direct scatter/gather inside each server + in-network reduction across servers (NCCL COLLNET_DIRECT, "
           "SHARP fabrics, Simple)";
  }
  bool supports(CollOp op) const override { return op == CollOp::all_reduce; }
  LatencyClass latency_class() const override { return LatencyClass::collnet; }
  std::string_view requirement() const override {
    return "the same number of GPUs in each of 2 or more servers, joined by a fabric whose switches reduce "
           "(topology fabric: {sharp: true})";
  }
  bool shape_ok(const GroupShape& g) const override { return g.uniform_hosts().size() >= 2; }
  bool applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const override {
    if (!supports(op)) return false;
    LoweringContext ctx{&topo, op, {ranks.begin(), ranks.end()}, Bytes(0), 0, 1};
    return fabric_reduces_between(topo, ranks, ctx.shape().uniform_hosts());
  }

  // Participants: the ranks, then one aggregation point (the fabric's reduction) per part c = 0..L-1.
  ChunkSchedule expand(CollOp /*op*/, const GroupShape& g) const override {
    const auto hosts = g.uniform_hosts();
    const int H = static_cast<int>(hosts.size()), L = H > 0 ? static_cast<int>(hosts.front().size()) : 0;
    ChunkSchedule s{g.n, g.n + L, std::max(1, L), {}};
    if (H < 2) return s;
    auto rank = [&](int h, int i) { return hosts[static_cast<size_t>(h)][static_cast<size_t>(i)]; };
    ChunkStep& scatter = s.add_step();  // part c reaches its head, local index c, summed there
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < L; ++i)
        for (int c = 0; c < L; ++c)
          if (c != i) scatter.xfers.push_back({rank(h, i), rank(h, c), c, true});
    ChunkStep& up = s.add_step();  // the switches add the servers' sums of part c
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < L; ++c) up.xfers.push_back({rank(h, c), g.n + c, c, h != 0});
    ChunkStep& down = s.add_step();  // ... and multicast the total to every head of part c
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < L; ++c) down.xfers.push_back({g.n + c, rank(h, c), c, false});
    ChunkStep& gather = s.add_step();  // each head hands its part's total to its server's other ranks
    for (int h = 0; h < H; ++h)
      for (int c = 0; c < L; ++c)
        for (int i = 0; i < L; ++i)
          if (i != c) gather.xfers.push_back({rank(h, c), rank(h, i), c, false});
    return s;
  }

  FlowPlan lower(const LoweringContext& ctx) const override {
    FlowPlan plan;
    const auto hosts = ctx.shape().uniform_hosts();
    const int H = static_cast<int>(hosts.size());
    PLANSIM_ASSERT(H >= 2, "collnet_direct lowered on a group inside one server");
    const int L = static_cast<int>(hosts.front().size());
    const Bytes part = Bytes(ctx.bytes.value() / L);
    auto gpu = [&](int h, int i) {
      return ctx.ranks[static_cast<size_t>(hosts[static_cast<size_t>(h)][static_cast<size_t>(i)])];
    };
    PlannedPhase ph;
    // Inside each server: rank i -> head c (scatter) and head c -> rank i (gather), S/L each way.
    Time intra = Time::zero();
    for (int h = 0; h < H; ++h)
      for (int i = 0; i < L; ++i)
        for (int c = 0; c < L; ++c) {
          if (c == i) continue;
          PlannedFlow f;
          append_route(*ctx.topo, gpu(h, i), gpu(h, c), f.links);
          append_route(*ctx.topo, gpu(h, c), gpu(h, i), f.links);
          f.bytes = part;
          f.collnet = true;
          intra = std::max(intra, route_latency(*ctx.topo, gpu(h, i), gpu(h, c)));
          ph.flows.push_back(std::move(f));
        }
    // Across servers, per part c: every link of the aggregation tree carries the part once (one flow each).
    const size_t first = ph.flows.size();
    const Time tree = append_sharp_tree_flows(*ctx.topo, ctx.ranks, hosts, part, ph.flows);
    for (size_t i = first; i < ph.flows.size(); ++i) ph.flows[i].collnet = true;
    // The first bytes cross a scatter hop, the tree up and down, and a gather hop.
    for (auto& f : ph.flows) f.latency = intra * 2 + tree;
    ph.reduce_bytes_per_gpu = Bytes(ctx.bytes.value() * (L - 1) / L);  // a head adds L - 1 shares
    plan.phases.push_back(std::move(ph));
    plan.steps_intra = std::min(1, L - 1) * 2;  // tuning.cc: 2 x min(1, ppn - 1) x intraLat (+ arity, nccl_model)
    plan.steps_inter = 1;                       // ... + interLat
    plan.call_bytes = ctx.bytes;
    plan.nranks = ctx.n();
    plan.nnodes = H;
    return plan;
  }
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_collnet_direct_algorithm() {
  return std::make_unique<CollNetDirectAlgorithm>();
}

}  // namespace plansim
