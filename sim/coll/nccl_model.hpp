#pragma once
// NCCL's cost model, as plansim applies it on top of the flow network.
//
// Time of a collective = software/hardware latency + the flow network's time for the algorithm's
// FlowPlan, where every flow's bytes are inflated by 1 / efficiency:
//   * latency = base[class][proto] + steps_intra · hw[intra kind][class][proto] + steps_inter · hw[net][class][proto]
//     (NCCL src/graph/tuning.cc: baseLat, hwLat, "latencies += nsteps·lat"; a ring all-reduce has
//     2(n-1) steps), plus device_latency_us per call (calibration: what the GPUs pay per collective
//     beyond NCCL's tables; a training step pays it).
//   * a benchmark loop (nccl-tests, torch all_reduce_bench: `plansim collective`, `collective --compare`,
//     `calibrate`; measure.hpp) issues calls back to back from one host thread, which runs ahead of
//     the GPUs: each call then takes max(launch_overhead_us, device time), the host's per-call launch
//     cost being a floor, not an addition. Training steps do not pay it (the CPU enqueues ahead of the
//     stream), so only measure_collective applies it.
//   * pipeline fill: NCCL cuts each channel's data into chunks that flow through the algorithm's
//     stages (2(n-1) for a ring all-reduce); before the channel streams, min(stages - 1, NCCL_STEPS)
//     chunks of min(chunk, bytes per stage) must cross, so each flow carries that much more at its own
//     rate (PlannedFlow::pipeline_steps/step_bytes, pipeline_chunk_bytes, pipeline_depth). The depth
//     bound keeps a 16k-rank ring's start-up at 8 chunks, not 32k.
//   * channels: a ring or hierarchical flow is capped at its share of the protocol's channel caps and
//     of the links (nccl_channels.hpp), so bus bandwidth ramps with size as NCCL adds channels.
//   * efficiency = protocol efficiency × link efficiency of the flow's bottleneck link kind
//     (LL moves 8-byte lines holding 4 bytes of data and NCCL models ring LL at 1/4 of busBw; LL128
//     120 of 128 bytes, modelled at 0.92 as tuning.cc does; Simple 1.0), and NCCL reaching ~80% of
//     NVLink line rate (A100 ~230 of 300 GB/s, H100 ~370 of 450 GB/s; NDR 400 Gb/s NICs 46-49 GB/s:
//     nccl-tests issues 149, 212, 267, 290). NVLS flows use nvls_efficiency instead (8xH100 NVLS
//     all-reduce algbw ~275 GB/s over 450 GB/s links: issue 212).
// `auto` evaluates every applicable algorithm x protocol with predict() and keeps the fastest, as
// NCCL's tuner does with its own table (ties: registry order, then LL < LL128 < Simple).
#include <array>
#include <optional>
#include <string>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/flow_plan.hpp"

namespace plansim {

enum class Protocol { ll = 0, ll128 = 1, simple = 2 };
inline constexpr int kNumProtocols = 3;
const char* to_string(Protocol p);  // "LL", "LL128", "Simple"
// The benchmark loop a collective's timing comes from (measure.hpp): nccl-tests' (and plansim-hw
// bench's, a loop of the same kind), or a torch.distributed loop (all_reduce_bench.py), whose per-call
// host cost (Python, the framework's dispatch) lands inside the timing when each call is timed on an idle
// device (NcclModelParams::torch_loop_overhead_us).
enum class BenchHarness : uint8_t { nccl_tests, torch };
const char* to_string(BenchHarness h);  // "nccl-tests", "torch"
std::optional<BenchHarness> bench_harness_from_string(const std::string& s);
std::optional<Protocol> protocol_from_string(const std::string& s);  // case-insensitive

enum class HwKind { nvlink = 0, pci = 1, net = 2 };
inline constexpr int kNumLatencyClasses = 6;  // LatencyClass: ring, tree, nvls, nvls_tree, collnet, pat

struct NcclModelParams {
  using PerProto = std::array<double, kNumProtocols>;       // LL, LL128, Simple
  using PerClass = std::array<PerProto, kNumLatencyClasses>;  // ring, tree, nvls, nvls_tree, collnet, pat

  // Latencies in microseconds. Defaults: NVIDIA/nccl src/graph/tuning.cc (2.19-era tables; NCCL's
  // Ring/Tree/NVLS rows). A negative entry disables the protocol for that class (NVLS is Simple-only).
  // NVLS-Tree's row is tuning.cc's NVLSTree one (NCCL 2.19-2.20, NVIDIA/nccl b6475625: baseLat 0,
  // hwLat NVLink 23, network 14 us, Simple only), charged as intraLat + 2 log2i(nNodes) x interLat.
  // CollNet's is tuning.cc's CollNetDirect row (2.19-2.27: baseLat 0, hwLat NVLink and PCI 3.7, network
  // 31 us, Simple only), charged as 2 (min(1, ppn - 1) intraLat + (ppn - 1) x collnet_arity_latency_us) +
  // interLat.
  // PAT's is tuning.cc's (NCCL 2.23-2.27, ncclTopoTuneModel): Simple only, latency 8 us ("Base time") +
  // log2i(nNodes) x interLat / 3.5 ("Log latency") + nRanks x 2.8 us ("Still a linear part"), interLat the
  // tree's network row (one GPU per server: "latencies fully exposed"); its hw rows are unused.
  PerClass base_latency_us{{{6.6, 14.0, 8.4}, {6.8, 14.0, 0.0}, {-1, -1, 0.0}, {-1, -1, 0.0}, {-1, -1, 0.0}, {-1, -1, 8.0}}};
  std::array<PerClass, 3> hw_latency_us{{
      {{{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}, {-1, -1, 25.0}, {-1, -1, 23.0}, {-1, -1, 3.7}, {-1, -1, 0.0}}},   // NVLink
      {{{1.0, 2.5, 5.7}, {1.0, 1.9, 4.0}, {-1, -1, 0.0}, {-1, -1, 0.0}, {-1, -1, 3.7}, {-1, -1, 0.0}}},      // PCI
      {{{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}, {-1, -1, 18.0}, {-1, -1, 14.0}, {-1, -1, 31.0}, {-1, -1, 0.0}}},  // network
  }};
  // CollNet Direct (tuning.cc 2.19-2.27): "Add 0.4 us arity serialization latency" per local rank beyond
  // the first, twice (scatter and gather); and its all-reduce bandwidth x 0.85 from compute capability 9.0
  // ("if (minCompCap >= 90) busBw *= .85"; the defaults are Hopper's: an Ampere profile sets 1, profile key
  // efficiency: {collnet: ...}).
  double collnet_arity_latency_us = 0.4;
  double collnet_efficiency = 0.85;
  // PAT (tuning.cc 2.23-2.27): the log term's divisor (interLat / 3.5), the per-rank linear term (2.8 us),
  // and its bandwidth factor ("if (a == NCCL_ALGO_PAT) busBw *= .75"; profile key efficiency: {pat: ...}).
  double pat_log_latency_divisor = 3.5;
  double pat_rank_latency_us = 2.8;
  double pat_efficiency = 0.75;
  PerProto protocol_efficiency{0.25, 0.92, 1.0};
  double nvlink_efficiency = 0.82;   // 370 / 450 GB/s (H100, issue 212)
  double pcie_efficiency = 0.80;
  double network_efficiency = 0.94;  // ~47 / 50 GB/s per NDR NIC (issues 267, 290)
  double other_efficiency = 1.0;
  // NVLS all-reduce algbw ~275 GB/s on 8 H100 over 450 GB/s links (issue 212), each payload byte costing a
  // link 1 + 1/8 bytes (algo_nvls.cpp): 275 x 9/8 / 450.
  double nvls_efficiency = 0.69;
  int channels = 2;                  // flows per ring/hierarchical stage (same total bandwidth)
  // NCCL's channels (sim/coll/nccl_channels.hpp): how many the communicator opens (0 = from the
  // topology), how many a call of a given size uses (src/enqueue.cc: channels are dropped while
  // bytes < nChannels x nThreads x threadThreshold; tuning.cc: NCCL_{LL,LL128,SIMPLE}_THREAD_THRESHOLD
  // 8, 8, 64 bytes per thread, ring LL x nRanks; src/include/device.h: NCCL_LL_MAX_NTHREADS 512,
  // NCCL_LL128_MAX_NTHREADS 640, NCCL_SIMPLE_MAX_NTHREADS 512), and each channel's bus-bandwidth cap
  // per protocol (tuning.cc, NCCL 2.19-2.27 perChMaxRingLL128Bws: Ampere 20, Hopper 36.7 GB/s per
  // channel; 0 = no per-channel cap) and LL's total cap (llMaxBws: Ampere 87.7, Hopper 141 GB/s on one
  // node; 0 = none). Defaults: Hopper. A call's usable share of the links is channels used / channels.
  int nccl_channels = 0;
  PerProto channel_cap_GBps{0.0, 36.7, 0.0};
  double ll_max_GBps = 141.0;
  // LL's total cap when the group spans 2 / more than 2 servers. tuning.cc (NCCL 2.19-2.27,
  // ncclTopoTuneModel): "LL: for single node, we look at GPU type; for multi-node, we look at CPU type":
  // llMaxBws[cpuVendor is AMD (or mixed) ? 1 : 0][nNodes == 2 ? 1 : 2] = Intel 39.0 / 20.4, AMD 22.5 /
  // 19.0 GB/s, whatever the GPU. Default: Intel hosts (DGX H100); a profile sets AMD's (DGX A100: EPYC).
  std::array<double, 2> ll_max_multi_node_GBps{39.0, 20.4};
  PerProto max_threads{512, 640, 512};
  PerProto thread_threshold{8, 8, 64};
  // A channel keeps at most NCCL_STEPS = 8 steps in flight per connection (src/include/device.h), so
  // the pipeline start-up it pays before streaming is at most that many chunks, however long the
  // ring: the fill below is min(stages - 1, pipeline_depth) chunks, not (stages - 1).
  int pipeline_depth = 8;
  // Pipeline chunk per protocol of the flows that pay a fill (chains and trees; a ring pays none): one
  // step of the protocol's buffer, NCCL's chunk outside the Simple ring (src/enqueue.cc calcCollChunking:
  // chunkSteps 1; collectives.h BROADCAST_/REDUCE_CHUNKSTEPS 1): buffSize / NCCL_STEPS (8), LL 512 KiB / 8
  // of 16-byte lines half data = 32 KiB, LL128 120 x 640 x 8 x 8 B / 8 with 15 of 16 words data =
  // 576,000 B, Simple 4 MiB / 8 = 512 KiB (device.h). (2 MiB, the Simple ring's 4-step chunk, until
  // 2026-11-29.) A tree all-reduce's LL128 chunk shrinks for small calls (tree_chunk_bytes).
  // Fill = (stages - 1) x min(chunk, step bytes) at the flow rate.
  PerProto pipeline_chunk_bytes{32.0 * 1024, 576000.0, 512.0 * 1024};
  // NVLS all-reduce pipeline (nvls_pipeline.hpp): channels NCCL runs NVLS on (src/transport/nvls.cc:
  // NCCL_NVLS_NCHANNELS default 16, 2.18-2.26; ncclNvlsTuning's SM90 default 16 in later releases, where
  // Blackwell takes 24 on one node and 32 across nodes: set nvls_channels in its profile), the largest NVLS
  // chunk (NCCL_NVLS_CHUNKSIZE, 128 KiB, same file), and the stages a chunk crosses (scatter, switch
  // reduce + multicast, gather: src/device/all_reduce.h), whose fill is (stages - 1) loops of channels x
  // heads x chunk.
  int nvls_channels = 16;
  double nvls_chunk_bytes = 128.0 * 1024;
  int nvls_pipeline_stages = 3;
  // Slices per chunk of a Simple ring (collectives.h: ALLREDUCE_CHUNKSTEPS / ALLREDUCE_SLICESTEPS = 2):
  // each pays the per-step latency (nccl_channels.hpp latency_rounds); 0 or 1 = NCCL's tuning model
  // (the per-step latency once per step), which `auto` ranks with (selection.hpp).
  int simple_slices_per_chunk = 2;
  // tuning.cc ncclTopoGetAlgoTime (NCCL 2.19-2.27): a multi-node Ring/Simple all-reduce has its latency
  // x (minCompCap < 80 ? 1.9 : 1.4) ("Plateau effect of ring"): 1.4 on Ampere and Hopper, the GPUs plansim
  // ships (1.9, NCCL <= 2.18's factor for every GPU, is Volta's since 2.19).
  double ring_plateau_factor = 1.4;
  // A tree all-reduce's bandwidth as NCCL's tuner states it (tuning.cc ncclTopoTuneModel, 2.19-2.28:
  // "if (a == NCCL_ALGO_TREE && coll == ncclFuncAllReduce) busBw = std::min(busBw*.92, ...)"), and by size
  // its treeCorrectionFactor ("Trees are not perfectly sticking to the model for medium sizes", the same
  // file's ncclTopoGetAlgoTime: x 0.4-1.0 by protocol and log2(bytes / 64), 64 B to 256 MiB; a table NCCL
  // measured on its own trees). tree_size_correction false: no size factor.
  double tree_allreduce_efficiency = 0.92;
  bool tree_size_correction = true;
  // Network steps (tuning.cc, NCCL 2.19-2.27 ncclTopoTuneModel): each inter-server step also pays the
  // transport's own latency (graph latencyInter, from the net plugin's properties: 0 for NCCL's IB and
  // socket plugins, set by plugins such as TCPX/EFA ones; a profile sets it per system), twice with
  // Simple ("flush extra latency"); with one GPU per server the tree's network latency is used ("latencies
  // fully exposed"); and a multi-server ring's intra-server steps cost at least the network post overhead
  // (getNetOverhead: 1 us on Intel, 2 us on AMD hosts; x3 with Simple).
  double net_latency_us = 0.0;
  double net_overhead_us = 1.0;
  // Per call, fitted by `plansim calibrate --topology` (profile keys device_latency, launch_overhead;
  // plansim_profile 1's extra_latency is read as device_latency, as it was charged before).
  double device_latency_us = 0.0;    // every call, training included
  double launch_overhead_us = 0.0;   // benchmark loops only: floor of a call's time (measure.hpp)
  // The loop launch_overhead_us was measured under: the floor bounds that loop's timings only (a torch
  // loop's floor says nothing of nccl-tests', whose host runs further ahead of the GPUs).
  BenchHarness launch_overhead_harness = BenchHarness::nccl_tests;
  // Added to every call a torch.distributed loop times (measure.hpp; profile key torch_loop_overhead): such a
  // loop (all_reduce_bench.py before its busy-wait version) records its start event on an idle device and
  // then issues the call, so the host's issue of dist.all_reduce is inside the timing; nccl-tests queues calls
  // ahead and a training step's host runs ahead of its GPUs, so neither pays it. Measured on one H200 host:
  // 25 us per call at one rank, 14-21 us of it inside dist.all_reduce (validate/measured/h200/README.md);
  // fitted by `plansim calibrate --topology` where a system has tables of both loops.
  double torch_loop_overhead_us = 0.0;

  // No software latency, efficiency 1 everywhere: the bare flow-network model (closed-form tests).
  static NcclModelParams ideal();
  [[nodiscard]] bool protocol_enabled(LatencyClass c, Protocol p) const;
};

// Whether NCCL enables protocol `p` by default (NCCL_PROTO unset) for a group whose intra-server
// steps use `intra`. NVIDIA/nccl src/graph/tuning.cc (2.19-2.27, ncclTopoTuneModel): "Enable LL128 by
// default only on Volta/Ampere/Hopper+NVLink. Other cases are not tested and may cause silent data
// corruption" -- pEnable &= (graphs[a]->typeIntra <= PATH_NVB): LL128 is off when the GPUs of a
// server reach each other over PCIe or through the host (a PCIe box, P2P off), whatever the GPU.
bool protocol_on_by_default(Protocol p, HwKind intra);

// The kind of interconnect the group's intra-server steps use (NVLink if a same-server pair routes
// over NVLink, else PCI).
HwKind intra_hw_kind(const Topology& topo, std::span<const GpuId> ranks);

// Latency of one call: base + rounds x (steps x per-step latency) (+ device latency), rounds from
// latency_rounds (nccl_channels.hpp: 1 except for a Simple ring, which pays it per slice of each loop),
// less the plan's route latency up to the steps' part: the phases charge the route (plan_route_latency),
// and NCCL's per-step latency already stands for its hops, so a call pays max(steps, route), not both.
Time software_latency(const NcclModelParams& m, LatencyClass c, Protocol p, const FlowPlan& plan, HwKind intra);
// Route latency the phases of `plan` charge: per phase its slowest flow's latency, summed.
Time plan_route_latency(const FlowPlan& plan);
// Efficiency applied to a flow's bytes (wire bytes = bytes / efficiency).
double flow_efficiency(const NcclModelParams& m, Protocol p, const Topology& topo, const PlannedFlow& f);
// NCCL's treeCorrectionFactor for a tree all-reduce of `call_bytes` (1 from 512 MiB up).
double tree_size_correction(Protocol p, Bytes call_bytes);
// NCCL's chunk of a tree all-reduce with `per_channel` bytes per channel over `nodes` servers of
// `ranks_per_node` GPUs, from the protocol's one-step chunk `step` (pipeline_chunk_bytes; src/enqueue.cc
// calcCollChunking, 2.19-2.28): LL128's is halved for small calls down to 32 KiB, the others' kept.
Bytes tree_chunk_bytes(Protocol p, Bytes per_channel, int nodes, int ranks_per_node, Bytes step);
// Bytes the flow network moves for `f`: (payload + pipeline fill) / efficiency.
Bytes wire_bytes(const NcclModelParams& m, Protocol p, const Topology& topo, const PlannedFlow& f);

// Predicted time of `plan` alone on the network (no other traffic): latency + per phase the longest
// of (max flow latency + the most loaded link's wire bytes / bandwidth) and the HBM reduction time.
Time predict_time(const NcclModelParams& m, LatencyClass c, Protocol p, const FlowPlan& plan, const Topology& topo,
                  HwKind intra);

// HBM time of a local reduction: two reads and one write per reduced byte.
Time reduction_time(const Topology& topo, Bytes reduced);

}  // namespace plansim
