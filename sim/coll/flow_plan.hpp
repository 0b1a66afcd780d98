#pragma once
// The timing view of a collective algorithm: phases run one after another; the flows of a phase run
// concurrently on the FlowNetwork. A pipelined ring or tree channel is ONE flow whose links are the
// multiset of every hop it uses (each hop carries all of the flow's bytes at the channel's common rate);
// a step-synchronous algorithm (halving-doubling) gives one phase per step with a flow per pair.
// Local reductions read two inputs and write one output in HBM: reduce_bytes_per_gpu is the largest
// per-GPU amount reduced in the phase; it runs alongside the phase's flows (the phase ends when both end).
#include <utility>
#include <vector>

#include "sim/coll/chunk_schedule.hpp"
#include "sim/core/ids.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

struct PlannedFlow {
  std::vector<LinkId> links;  // multiset: a link listed k times carries k times the flow's bytes
  Bytes bytes;                // payload moved by the flow (each listed link carries all of it)
  Time latency;               // route latency paid before the flow moves (hops × steps of the pipeline)
  bool in_switch = false;     // NVLS traffic (its efficiency is the NVLS one, not the link one)
  // Pipelining: the flow is a pipeline of `pipeline_steps` stages, each moving `step_bytes` of data
  // (before NCCL cuts it into chunks). The NCCL model charges the pipeline fill as (stages - 1) chunks
  // of min(chunk, step_bytes) moved at the flow's rate (nccl_model.hpp). 1 = not pipelined.
  int pipeline_steps = 1;
  Bytes step_bytes;
  // An NVLS flow (nvls_heads > 0): its fill is NCCL's NVLS pipeline's (nvls_pipeline.hpp) for a call of
  // nvls_call_bytes with nvls_heads heads, x the flow's bytes / nvls_call_bytes (a payload byte of the call
  // costs the flow that many bytes; pipeline_steps / step_bytes are then unused).
  int nvls_heads = 0;
  Bytes nvls_call_bytes;
  // NVLS-Tree (algo_nvls_tree.cpp): the call spans this many levels of the tree over servers (0 = one-node
  // NVLS); its chunk and fill are NVLS-Tree's (nvls_pipeline.hpp nvls_tree_*).
  int nvls_tree_levels = 0;
  int nvls_tree_nodes = 0;
  // A tree all-reduce's flow (algo_tree.cpp): the call's bytes, for NCCL's tree bandwidth factors
  // (NcclModelParams::tree_allreduce_efficiency, tree_size_correction); 0 = not one.
  Bytes tree_allreduce_call_bytes;
  // Its servers and ranks per server (NCCL's nNodes and ppn), which set the tree's chunk (nccl_model.hpp
  // tree_chunk_bytes) and so its fill; 0 = the model's pipeline_chunk_bytes.
  int tree_nodes = 0;
  int tree_ranks_per_node = 0;
  // A CollNet flow (algo_collnet_direct.cpp): NCCL's CollNet bandwidth factor applies
  // (NcclModelParams::collnet_efficiency).
  bool collnet = false;
  // A PAT flow (algo_pat.cpp): NCCL's PAT bandwidth factor applies (NcclModelParams::pat_efficiency).
  bool pat = false;
};

struct PlannedPhase {
  std::vector<PlannedFlow> flows;
  Bytes reduce_bytes_per_gpu;  // local reduction work on the busiest GPU
};

struct FlowPlan {
  std::vector<PlannedPhase> phases;
  int steps_intra = 0;  // algorithm steps inside a server (NCCL's per-step hardware latency)
  int steps_inter = 0;  // algorithm steps crossing servers
  bool ring_plateau = false;  // a multi-server ring all-reduce (NCCL's "plateau effect", nccl_model.hpp)
  // NCCL channels (nccl_channels.hpp): when set, every flow of a phase is one channel of a ring-like
  // algorithm whose payload rates add up to the bus bandwidth, and the channel caps apply.
  bool channel_capped = false;
  Bytes call_bytes;  // the call's S, for the channels a size uses
  int nranks = 0;
  int nnodes = 1;    // NVLink domains / servers the group spans (NCCL's nNodes: LL's cap, nccl_channels.hpp)

  // Bytes per link summed over the whole plan (multiplicity counted), indexed by LinkId.
  [[nodiscard]] std::vector<double> link_bytes(size_t num_links) const;
  [[nodiscard]] size_t num_flows() const;
};

// While a RouteReads lives (on this thread), every route append_route() and route_latency() read is
// listed in it as (from, to): CollectiveRunner records which routes between a call's ranks preparing
// it read (renamed_links() in collective_renaming.cpp).
class RouteReads {
 public:
  RouteReads();
  ~RouteReads();
  RouteReads(const RouteReads&) = delete;
  RouteReads& operator=(const RouteReads&) = delete;
  std::vector<std::pair<GpuId, GpuId>> pairs;

 private:
  RouteReads* outer_;
};

// Appends the links of the route a->b to `out` (nothing when a == b).
void append_route(const Topology& topo, GpuId a, GpuId b, std::vector<LinkId>& out);
// Largest route latency over the hops i -> next(i) of a cycle/chain of GPUs.
Time max_hop_latency(const Topology& topo, const std::vector<GpuId>& from, const std::vector<GpuId>& to);
Time route_latency(const Topology& topo, GpuId a, GpuId b);

class PxnRelays;

// The generic lowering of a step-synchronous schedule: one phase per step, one flow per (src, dst) pair
// of the step carrying all its chunks. Participants must all be ranks (no switch participants). With
// `relays`, a pair's flow takes NCCL's PXN route (pxn.hpp: over NVLink to the rank owning the NIC on the
// destination's rail, then out through it).
FlowPlan lower_steps(const ChunkSchedule& s, const Topology& topo, const std::vector<GpuId>& ranks, Bytes total,
                     const PxnRelays* relays = nullptr);

// Bytes per link implied by a schedule (each transfer's chunk on each link of its route; with `relays`,
// its PXN route).
std::vector<double> schedule_link_bytes(const ChunkSchedule& s, const Topology& topo, const std::vector<GpuId>& ranks,
                                        Bytes total, const PxnRelays* relays = nullptr);

}  // namespace plansim
