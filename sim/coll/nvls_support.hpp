#pragma once
// When NCCL runs NVLS at all: ncclNvlsInit (src/transport/nvls.cc, NCCL 2.18-2.27) leaves nvlsSupport = 0
// when the communicator has 2 GPUs or fewer in its node (`gpuCount <= 2`; with multi-node NVLink,
// `clique.size <= 2`), so neither its tuner nor NCCL_ALGO=NVLS runs NVLS there.
#include <cstddef>
#include <span>
#include <vector>

#include "sim/coll/flow_plan.hpp"
#include "sim/core/ids.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// NVLS-capable switches directly connected to every GPU of `ranks`, in node-id order (algo_nvls.cpp).
std::vector<NodeId> common_nvls_switches(const Topology& topo, std::span<const GpuId> ranks);

// Whether `hosts` (each a list of indices into `ranks`, all of one size) are 2 or more servers in different
// NVLink domains, each with at least kMinNvlsGpus GPUs on a common NVLS switch: where NCCL runs NVLS inside
// every server of a multi-node all-reduce (nvls_tree, nvls_collnet; one NVLink domain is plain NVLS, MNNVL).
bool nvls_in_every_server(const Topology& topo, std::span<const GpuId> ranks,
                          const std::vector<std::vector<int>>& hosts);

// The flows of one NVLS all-reduce of `call` bytes among `members` (sharing an NVLS switch): per GPU and
// direction S + S/m (its buffer read by the m heads / the multicast copies, plus its head's load / store),
// spread evenly over the common switches, as in-switch flows with NCCL's NVLS pipeline for m heads
// (algo_nvls.cpp; used by nvls, nvls_tree and nvls_collnet).
void append_nvls_flows(const Topology& topo, std::span<const GpuId> members, Bytes call, std::vector<PlannedFlow>& out);

inline constexpr size_t kMinNvlsGpus = 3;
inline constexpr const char* kNvlsRequirement =
    "at least 3 GPUs sharing an NVSwitch marked nvls: true (NCCL turns NVLS off at 2 GPUs per node, "
    "transport/nvls.cc)";

}  // namespace plansim
