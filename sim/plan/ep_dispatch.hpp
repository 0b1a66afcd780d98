#pragma once
// How an MoE layer's tokens reach their experts across the expert-parallel group (`parallel.ep_dispatcher`).
//
// alltoall (Megatron-Core's `alltoall` token dispatcher): every token is sent once per chosen expert
// (top_k copies), straight to the rank holding that expert, one all-to-all over the whole EP group
// before the experts and one after them (the combine).
//
// hierarchical (Megatron-Core's `flex` dispatcher with the DeepEP or HybridEP backend, Megatron-Bridge's
// `moe_flex_dispatcher_backend`): a token crosses the inter-server fabric at most once per destination
// server (NVLink domain: a server, or the trays of an NVL72 rack, whose GPUs all reach each other over
// NVLink), to the rank with its own local index there, which forwards it over NVLink to the experts of
// that domain that chose it (DeepSeek-V3 report, arXiv 2412.19437, Sec. 3.2.2 "each token ... is
// transmitted via IB to the GPUs with the same in-node index on its target nodes ... then forwarded via
// NVLink"; DeepEP's normal kernels; NVIDIA HybridEP). Modelled as two all-to-alls: one over the EP
// ranks with this rank's in-server index on every server of the EP group (each token sent to the
// servers holding at least one of its k experts), then one over the EP ranks of this server (each of
// the k copies to its expert); the combine runs them in the reverse order.
#include <vector>

#include "sim/plan/scenario.hpp"

namespace plansim {

// Expected number of the n servers (of an EP group whose E experts are spread evenly, E/n each) that
// hold at least one of a token's k distinct experts under uniform routing: n·(1 − C(E − E/n, k)/C(E, k)).
double expected_servers_hit(int experts, int top_k, int servers);

// The EP group of a rank, split by NVLink domain (`members` in EP order, `domain_gpus` GPUs per domain,
// a rank r in domain r / domain_gpus; ParallelSpec::domain_gpus). `across`: the members with this rank's
// index within its domain, one per domain; `within`: this rank's domain's members. Empty when the group
// is in one domain, or its domains hold unequal numbers of members (then the flat all-to-all is used).
struct EpSplit {
  std::vector<int> across;
  std::vector<int> within;
};
EpSplit split_ep_group(const std::vector<int>& members, int rank, int domain_gpus);

}  // namespace plansim
