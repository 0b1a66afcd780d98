#pragma once
// PXN ("PCI x NVLink"), how NCCL routes point-to-point traffic between servers by default since 2.12
// (docs env.html: NCCL_PXN_DISABLE default 0; NCCL_P2P_PXN_LEVEL default 2, "Always use PXN, even if the NIC
// is connected through PCI switches (storing data from all GPUs within the node on an intermediate GPU to
// maximize aggregation)"): a send to a GPU of another server (outside the sender's NVLink domain: inside an NVL72 rack it stays on NVLink) leaves through the sender server's NIC with the
// destination's NIC index (rail matching: NIC i of every server on rail i), written first over NVLink into
// the GPU that owns that NIC, whose proxy posts it. That GPU must be a rank of the same communicator and
// reach the sender over NVLink ("inter-node communication using a non-local NIC, using NVLink and an
// intermediate GPU"); otherwise, and when the sender's own NIC has the destination's index, the send goes
// straight. On a rail-optimized fabric the relay keeps a cross-rail send on one rail (no spine hop); on a
// non-blocking fabric each server's NICs carry the same bytes either way. NCCL pipelines the relay in
// chunks, so lower_steps() times it as two flows of the same bytes that run at once, each at its own rate:
// the NVLink leg (sender -> relay) and the network leg (relay -> destination), the latter paying both legs'
// route latency before its first byte. plansim applies it to the
// pairwise sends of `direct` (all-to-all, gather, scatter: grouped point-to-point in NCCL); a 2-rank
// send_recv has no third rank to relay through, and the ring/tree algorithms place their own NIC crossings.
#include <span>
#include <unordered_map>
#include <vector>

#include "sim/core/ids.hpp"
#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

// The index of GPU g's NIC inside its server (-1: the GPU has no NIC of its own).
int nic_index(const Topology& topo, GpuId g);

class PxnRelays {
 public:
  PxnRelays(const Topology& topo, std::span<const GpuId> ranks);
  // The rank a send src -> dst is relayed through; src itself when it goes straight.
  [[nodiscard]] GpuId relay(GpuId src, GpuId dst) const;

 private:
  const Topology* topo_;
  std::unordered_map<long long, GpuId> owner_;  // (server, NIC index) -> the first rank owning that NIC
};

// Appends the links of the send src -> dst relayed through `via` (src: straight) and returns the latency of
// its route (both legs when relayed).
Time append_p2p_route(const Topology& topo, GpuId src, GpuId via, GpuId dst, std::vector<LinkId>& out);

}  // namespace plansim
