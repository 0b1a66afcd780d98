#pragma once
// When NCCL runs NVLS at all: ncclNvlsInit (src/transport/nvls.cc, NCCL 2.18-2.27) leaves nvlsSupport = 0
// when the communicator has 2 GPUs or fewer in its node (`gpuCount <= 2`; with multi-node NVLink,
// `clique.size <= 2`), so neither its tuner nor NCCL_ALGO=NVLS runs NVLS there.
#include <cstddef>
#include <span>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// NVLS-capable switches directly connected to every GPU of `ranks`, in node-id order (algo_nvls.cpp).
std::vector<NodeId> common_nvls_switches(const Topology& topo, std::span<const GpuId> ranks);

inline constexpr size_t kMinNvlsGpus = 3;
inline constexpr const char* kNvlsRequirement =
    "at least 3 GPUs sharing an NVSwitch marked nvls: true (NCCL turns NVLS off at 2 GPUs per node, "
    "transport/nvls.cc)";

}  // namespace plansim
