#pragma once
// NCCL's channels as they limit a ring-like collective's bandwidth (nccl_model.hpp's parameters):
//   * the communicator opens C channels (NcclModelParams::nccl_channels, or from the topology:
//     channels_for_topology);
//   * a call of S bytes uses c(S) = min(C, max(1, floor(S / (nThreads x threadThreshold)))) of them
//     (src/enqueue.cc drops channels while S < c x nThreads x threshold; the ring LL threshold is
//     multiplied by nRanks, src/graph/tuning.cc), so it can use at most c(S)/C of the links' rate;
//   * its bus bandwidth is at most c(S) x the protocol's per-channel cap (LL128: perChMaxRingLL128Bw,
//     the same on any number of servers) and, for LL, llMaxBw in total (tuning.cc), which depends on the
//     servers the group spans (ll_max_GBps below).
// A FlowPlan marked channel_capped has one flow per channel-share whose payload rates add up to the
// bus bandwidth (ring), so each flow's cap is the phase's total cap divided by its flows.
#include <vector>

#include "sim/coll/flow_plan.hpp"
#include "sim/coll/nccl_model.hpp"

namespace plansim {

// Channels NCCL opens for a group whose intra-server steps use `intra`: 16 on NVLink (the ring search
// of src/graph/search.cc stops at MAXCHANNELS/2 = 16 rings over NVSwitch), 2 over PCI.
int channels_for_topology(HwKind intra);
// Channels a call of `bytes` over `nranks` uses with protocol `p` out of `open` (enqueue.cc).
int channels_used(const NcclModelParams& m, Protocol p, Bytes bytes, int nranks, int open);
// LL's total bus-bandwidth cap in GB/s for a group over `nodes` servers (0 = none): NcclModelParams::
// ll_max_GBps on one server (the GPU generation's), ll_max_multi_node_GBps[0] on 2, [1] on more (the
// host CPU vendor's; tuning.cc llMaxBws, index2 = nNodes <= 2 ? nNodes - 1 : 2).
double ll_max_GBps(const NcclModelParams& m, int nodes);
// Rounds of per-step latency a ring call pays with protocol `p` (nccl_model.hpp software_latency).
// NCCL's tuning model (tuning.cc) charges its per-step hwLat once per algorithm step. A Simple ring,
// though, hands every slice to the next rank through a flag it must wait for (Simple's data is not
// self-synchronising as LL/LL128's flagged lines are), and a chunk is cut into slicesPerChunk =
// ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS = (NCCL_STEPS/2)/(NCCL_STEPS/4) = 2 slices
// (src/include/collectives.h, NCCL 2.19-2.27; the same for all-gather / reduce-scatter), so each step's
// latency is paid once per slice: rounds = 2 (NcclModelParams::simple_slices_per_chunk). Only the first
// loop's are exposed: with NCCL_STEPS = 8 steps in flight (4 slices of 2 steps) a later loop's slices
// are posted while earlier ones drain, so the rounds do not grow with the loops (size). 1 for LL, LL128
// and non-ring plans, and when the servers' GPUs talk over PCIe / host memory (intra != NVLink): a
// modelling choice from the tables, not from NCCL's source -- the A100 NVLink table's Simple sizes need the
// second round (16-64 MiB), the P2P-off RTX 4090 box's do not (its 32-512 KiB rows come out 15-65 % slow
// with it), where NCCL's PCI per-step latency already matches the measured Simple ramp. 1 also for a
// multi-server ring all-reduce (FlowPlan::ring_plateau): there NCCL's own model charges the Simple ring's
// extra latency as the plateau factor (x1.4 on Ampere/Hopper, NcclModelParams::ring_plateau_factor), and
// both would count it twice (the 3x8 A100 HDR point: -22.7 % with both, ring/Simple at 128 MiB).
int latency_rounds(const NcclModelParams& m, Protocol p, const FlowPlan& plan, HwKind intra);
// Per-flow caps on the wire rate (bytes on the wire per second; FlowNetwork::kNoCap where none binds)
// of the flows of `ph`, whose wire bytes are `wire` (same order as ph.flows).
std::vector<double> flow_caps(const NcclModelParams& m, Protocol p, const FlowPlan& plan, const PlannedPhase& ph,
                              const std::vector<double>& wire, const Topology& topo, HwKind intra);

}  // namespace plansim
