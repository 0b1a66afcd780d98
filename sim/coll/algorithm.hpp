#pragma once
// One interface for every collective algorithm, with two views tied together by tests:
//   expand(): the data movement (ChunkSchedule), checked by the reference executor;
//   lower():  the timing plan (FlowPlan) run on the FlowNetwork; its per-link bytes equal expand()'s.
// Algorithms are registered by name (registry.cpp: one line each). Adding one = one file + one line.
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/coll/chunk_schedule.hpp"
#include "sim/coll/collective_runner.hpp"
#include "sim/coll/flow_plan.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// Which of NCCL's latency families the algorithm's software/hardware latencies follow (nccl_model.hpp).
enum class LatencyClass { ring, tree, nvls, nvls_tree, collnet, pat };

struct LoweringContext {
  const Topology* topo = nullptr;
  CollOp op = CollOp::all_reduce;
  std::vector<GpuId> ranks;
  Bytes bytes;       // nccl-tests' S
  int root = 0;
  int channels = 1;  // parallel channels of a pipelined algorithm (NCCL's nChannels)

  [[nodiscard]] int n() const { return static_cast<int>(ranks.size()); }
  [[nodiscard]] GroupShape shape() const;  // hosts of the ranks from the topology
};

struct NcclModelParams;

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view description() const = 0;
  [[nodiscard]] virtual bool supports(CollOp op) const = 0;
  [[nodiscard]] virtual LatencyClass latency_class() const { return LatencyClass::ring; }
  // Whether it can run `op` on this group of this topology (default: supports(op) and group shape ok).
  [[nodiscard]] virtual bool applicable(CollOp op, const Topology& topo, std::span<const GpuId> ranks) const;
  // Data movement for a group of shape `g` (chunk schedule over g.n ranks).
  [[nodiscard]] virtual ChunkSchedule expand(CollOp op, const GroupShape& g) const = 0;
  // Timing plan; the default lowers expand() step by step (step-synchronous algorithms).
  [[nodiscard]] virtual FlowPlan lower(const LoweringContext& ctx) const;
  // Whether `auto` considers it for `op`: NCCL's own algorithms do (ring, tree, nvls, nvls_tree, collnet_direct,
  // nvls_collnet, pat, chain, direct, send_recv) for the ops NCCL's tuner runs them on (tree: all-reduce only);
  // algorithms NCCL does not ship (halving_doubling, hierarchical) run only when named.
  [[nodiscard]] virtual bool in_auto(CollOp /*op*/) const { return true; }
  // What a group needs for applicable() to hold, for the error when it is named and does not ("" = not stated).
  [[nodiscard]] virtual std::string_view requirement() const { return ""; }
  // Whether expand() is valid for a shape (hierarchical needs equal-size hosts).
  [[nodiscard]] virtual bool shape_ok(const GroupShape& /*g*/) const { return true; }
  // A time predict_time() cannot beat for this call under `m`, found without lowering it (0: none known).
  // `auto` skips the algorithm where another candidate is already at least as fast (exact: it could not win).
  [[nodiscard]] virtual Time time_lower_bound(const LoweringContext& /*ctx*/, const NcclModelParams& /*m*/) const {
    return Time::zero();
  }
};

class AlgorithmRegistry {
 public:
  void add(std::unique_ptr<CollectiveAlgorithm> a);
  [[nodiscard]] const CollectiveAlgorithm* find(std::string_view name) const;  // nullptr if unknown
  [[nodiscard]] const std::vector<std::unique_ptr<CollectiveAlgorithm>>& all() const { return algos_; }
  [[nodiscard]] std::vector<std::string> names() const;

 private:
  std::vector<std::unique_ptr<CollectiveAlgorithm>> algos_;
};

// Every built-in algorithm (registry.cpp).
AlgorithmRegistry make_default_registry();

// ---- helpers shared by the algorithm files (ring_steps.cpp) ----
// Ring reduce-scatter over participants p[0..m-1]: chunk group g[i] ends fully reduced at p[i].
// Steps are appended starting at step index `first` (creating steps as needed), so independent rings
// can share steps. Returns the index after the last step used.
size_t ring_reduce_scatter(ChunkSchedule& s, size_t first, const std::vector<int>& p,
                           const std::vector<std::vector<int>>& groups);
// Ring all-gather: chunk group g[i] starts at p[i] and ends at every participant.
size_t ring_all_gather(ChunkSchedule& s, size_t first, const std::vector<int>& p,
                       const std::vector<std::vector<int>>& groups);
ChunkStep& step_at(ChunkSchedule& s, size_t index);
// One ring flow over ranks r[0..m-1] (hops r[i] -> r[i+1 mod m]) moving `bytes` through every hop.
// A ring pays no pipeline fill (pipeline_steps = 1): every rank starts step 0 with its own data, and
// step k of a slice on hop i only waits for step k-1 of the same slice on hop i-1, which the previous
// hop finished one slice-time earlier, so every hop streams from the first byte (NCCL's own model
// for Ring is latency + S / busBw with no fill term: src/graph/tuning.cc ncclTopoGetAlgoTime, 2.19-2.27).
// Its `steps` still count for the per-hop latency.
PlannedFlow ring_flow(const Topology& topo, const std::vector<GpuId>& r, Bytes bytes, int steps);
int distinct_hosts(const Topology& topo, std::span<const GpuId> ranks);
// The rank orders of NCCL's rings (its channels): one server, the ranks in order; across equal servers
// L orders (L ranks per server), order k visiting the servers in order and each server's ranks rotated
// by k, so that every order leaves each server through a different GPU, hence NIC (graph/search.cc).
std::vector<std::vector<int>> nccl_ring_orders(const GroupShape& g);
// NCCL's nNodes: NVLink domains (topology islands) the group spans, a multi-server NVLink domain counting as
// one node (tuning.cc ncclTopoTuneModel, MNNVL releases 2.2x: "MNNVL support - treat as a single NVLink
// connected node", nNodes = comm->MNNVL ? 1 : comm->nNodes).
int islands_spanned(const Topology& topo, std::span<const GpuId> ranks);
// Parent of each of 0..n-1 (-1 at the root) in tree `which` (0 or 1) of NCCL's double binary tree
// (ncclGetBtree / ncclGetDtree shapes, algo_tree.cpp).
std::vector<int> nccl_dtree_parents(int n, int which);
// The trees a tree collective runs (algo_tree.cpp), as parent arrays over the group's ranks (-1 = a root),
// one per equal share of the buffer: the double binary tree over the ranks (one tree for a rooted op), or
// for an all-reduce across equal servers NCCL's: 2 trees over the servers x L chain orders inside them.
std::vector<std::vector<int>> nccl_tree_parents(CollOp op, const GroupShape& g);

}  // namespace plansim
