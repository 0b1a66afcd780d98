#pragma once
// The one entry point through which anything (the `collective` command, the plan executor) runs a
// collective on the simulated network. Implemented in coll/; algorithms live one per file behind
// coll/algorithm.hpp and are chosen by name or by `auto` (NCCL-tuner-like fastest prediction).
#include <functional>
#include <memory>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/core/units.hpp"
#include "sim/net/flow_network.hpp"

namespace plansim {

struct NcclModelParams;  // sim/coll/nccl_model.hpp

enum class CollOp { all_reduce, all_gather, reduce_scatter, broadcast, reduce, gather, scatter, all_to_all, send_recv };
const char* to_string(CollOp op);
std::optional<CollOp> coll_op_from_string(const std::string& s);  // "all_reduce"/"allreduce"/"all-reduce"...
// nccl-tests' bus-bandwidth factor for n ranks (all_reduce 2(n-1)/n, all_gather/reduce_scatter/all_to_all (n-1)/n, others 1).
double busbw_factor(CollOp op, int n);

struct CollectiveCall {
  CollOp op = CollOp::all_reduce;
  std::vector<GpuId> ranks;       // group members in rank order (for send_recv: {src, dst})
  Bytes bytes;                    // nccl-tests convention: the full buffer size S (all_gather: the gathered output)
  int root = 0;                   // broadcast/reduce/gather/scatter root, as an index into ranks
  std::string algorithm = "auto"; // "auto" or an algorithm name from the registry
  std::string protocol = "auto";  // "auto" or LL / LL128 / Simple (nccl_model.hpp)
};

struct CollectiveResult {
  std::string algorithm;  // what ran (the one `auto` chose)
  std::string protocol;   // LL / LL128 / Simple
  Time start;
  Time end;
};

// A call prepared once by CollectiveRunner::prepare() and started any number of times. Valid for the
// runner that made it.
struct PreparedCall {
  uint32_t index = ~0U;
  [[nodiscard]] bool valid() const { return index != ~0U; }
};

class CollectiveRunner {
 public:
  explicit CollectiveRunner(FlowNetwork& net);  // default NcclModelParams
  CollectiveRunner(FlowNetwork& net, const NcclModelParams& params);
  ~CollectiveRunner();
  CollectiveRunner(const CollectiveRunner&) = delete;
  CollectiveRunner& operator=(const CollectiveRunner&) = delete;
  // Starts `call` at the simulation's current time; on_done receives the result at completion.
  // Concurrent collectives share links through the flow network.
  void start(const CollectiveCall& call, std::function<void(const CollectiveResult&)> on_done);
  // The same in two steps, for callers that issue one call many times (the plan executor): prepare
  // chooses and lowers the call (or finds it prepared already; throws on a bad call), start runs it
  // without looking the call up again and, where on_done fits std::function's inline buffer, without
  // allocating. The runner and its FlowNetwork must outlive the collectives they run.
  PreparedCall prepare(const CollectiveCall& call);
  // Whether prepare() may give a new call as an earlier call of the same op, size, bytes and requests
  // renamed, where renamed_links() proves it is (default on; off: every call chosen and lowered anew,
  // the reference tests/coll/test_renamed_calls.cpp compares with).
  void reuse_renamings(bool on);
  void start(PreparedCall call, std::function<void()> on_done);
  // Whether two prepared calls run the same way up to a renaming of links: same software latency,
  // phases, reduction times, and flow by flow the same wire bytes, latency and number of links, each
  // link of `a`'s flow paired position by position with `b`'s by pair(link of a, link of b), which
  // decides whether the pairing is acceptable (TP folding's network planes, plan/replica_planes.hpp).
  [[nodiscard]] bool same_shape(PreparedCall a, PreparedCall b,
                                const std::function<bool(LinkId, LinkId)>& pair) const;
  // The route of a send/recv from `src` to `dst` with `a`'s bytes and requests, when preparing that
  // call provably gives `a` with its one flow's links renamed, position by position, onto that route:
  // then same_shape(a, prepare(that call), pair) is pair() over the two routes position by position,
  // and the call need not be prepared (DP folding checks tens of thousands of replicas' send/recvs).
  // Empty when `a` is not a send/recv of two distinct GPUs, or the proof's conditions fail: see
  // renamed_send_recv_route() in collective_runner.cpp for them and why they suffice.
  [[nodiscard]] std::optional<std::span<const LinkId>> renamed_send_recv_route(PreparedCall a, GpuId src,
                                                                               GpuId dst) const;
  // The same for a collective of `a` (op, bytes, root, requests) over `ranks` instead of a's ranks:
  // when preparing that call provably gives `a` with its links renamed by one one-to-one map φ, writes
  // into `links` φ of a's flows' links, phase by phase and flow by flow, in the order same_shape()
  // pairs them, and says true. See renamed_links() in collective_runner.cpp for the conditions.
  bool renamed_links(PreparedCall a, std::span<const GpuId> ranks, std::vector<LinkId>& links);
  // A proven lower bound on the call's duration with any other traffic on the network (plansim run
  // --bound): the software latency, then per phase the largest of its reduction time, each flow's
  // latency + wire bytes at the rate its most constraining link gives it alone (a max-min rate never
  // exceeds capacity / multiplicity on any link of the flow), and each link's phase load / capacity
  // after the smallest latency of the flows crossing it (the link moves at most its capacity).
  // Byte terms are rounded down to the picosecond, so a run of the call alone, whose finish times
  // are rounded to the nearest, never ends before it. Equal to the call's time alone when no link
  // of a phase is shared by flows of different rates or latencies (a ring's channels, a send/recv).
  [[nodiscard]] Time lower_bound(PreparedCall call) const;

  // The call `a` with each flow's links replaced by what `remap(links, out)` writes into `out`
  // (same phases, wire bytes, latencies and reductions): a new prepared call, or an invalid one
  // if remap returned false for some flow. Network planes use it to drop a spanning flow's
  // duplicate constraints (plan/replica_planes.hpp).
  [[nodiscard]] PreparedCall remap(PreparedCall a,
                                   const std::function<bool(std::span<const LinkId>, std::vector<LinkId>&)>& remap);
  // A flow of a prepared call as a phase rewrite sees it: its links (a multiset) and what it moves.
  struct FlowShape {
    std::span<const LinkId> links;
    Bytes wire_bytes;
    Time latency;
    Rate cap;
  };
  // Where a phase rewrite sends flow i: the links it keeps, or nullopt to drop it (flows that some
  // kept flow stands for, with the same rate by a symmetry the rewriter has proven).
  using FlowRewrite = std::vector<std::optional<std::vector<LinkId>>>;
  // The call `a` with each phase's flows rewritten at once by `rewrite(flows, out)` (out sized to the
  // phase's flows; the phase keeps its reduction and the call its software latency): a new prepared
  // call, or an invalid one if rewrite returned false for some phase. Replica orbits use it to run a
  // spanning call on their quotient network (plan/replica_orbits.hpp).
  [[nodiscard]] PreparedCall rewrite_phases(
      PreparedCall a, const std::function<bool(std::span<const FlowShape>, FlowRewrite&)>& rewrite);
  // Each flow's links (a multiset), phase by phase.
  void for_each_flow_links(PreparedCall a, const std::function<void(std::span<const LinkId>)>& visit) const;
  // Each phase's flows.
  void for_each_phase(PreparedCall a, const std::function<void(std::span<const FlowShape>)>& visit) const;
  // What a prepared call runs: the algorithm `auto` chose, and the protocol.
  [[nodiscard]] const std::string& algorithm(PreparedCall call) const;
  [[nodiscard]] const std::string& protocol(PreparedCall call) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace plansim
