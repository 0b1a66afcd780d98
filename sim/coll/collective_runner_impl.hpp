#pragma once
// coll-internal: what CollectiveRunner (collective_runner.hpp) keeps per distinct call and per run, and
// its implementation's state. collective_runner.cpp prepares and runs calls; collective_renaming.cpp
// proves a call to be a prepared one on renamed links (renamed_links, renamed_send_recv_route) and
// compares or renames prepared calls (same_shape, remap, for_each_flow_links).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/algorithm.hpp"
#include "sim/coll/selection.hpp"

namespace plansim::coll_runner {

// One flow of a phase as a run starts it (one FlowNetwork batch per phase): its route prepared on
// the network, bytes on the wire (1/efficiency included), latency, and the NCCL channel cap on the
// wire rate (nccl_channels.hpp; FlowNetwork::kNoCap if none).
using PreparedFlow = FlowNetwork::BatchFlow;
constexpr uint32_t kNoLink = ~0U;

// Everything a run of one distinct call needs, computed once.
struct Prepared {
  CollOp op;
  int root;
  double bytes;
  std::string algorithm_request, protocol_request;
  std::vector<GpuId> ranks;
  CollectiveChoice choice;
  Time software_latency;
  std::string algorithm, protocol;          // what ran, for CollectiveResult
  std::vector<std::vector<PreparedFlow>> flows;  // [phase][flow]
  std::vector<Time> reduce;                 // [phase]: local reduction time
  // renamed_links(): the routes between ranks choosing and lowering the call read, distinct, once asked.
  mutable std::vector<std::pair<GpuId, GpuId>> route_reads;
  mutable bool reads_known = false;
  // renamed_links(), once the reads are known: per rank position the first position holding the same
  // GPU and the first holding a GPU of the same server; per read, its first positions (i, k) and the
  // route itself (spans stay valid for the topology's lifetime); false when a read is not between ranks.
  mutable std::vector<uint32_t> first_rank, first_host;
  mutable std::vector<std::pair<uint32_t, uint32_t>> read_at;
  mutable std::vector<std::span<const LinkId>> read_route;
  mutable bool reads_between_ranks = false;

  [[nodiscard]] bool matches(const CollectiveCall& c) const {
    return op == c.op && root == c.root && bytes == c.bytes.value() && ranks == c.ranks &&
           algorithm_request == c.algorithm && protocol_request == c.protocol;
  }
};

// A collective in flight. Exactly one of the two callbacks is set.
struct Run {
  uint32_t prep = 0;
  uint32_t phase = 0;
  size_t pending = 0;
  Time start;
  std::function<void()> on_done;
  std::function<void(const CollectiveResult&)> on_result;
};

}  // namespace plansim::coll_runner

namespace plansim {

using coll_runner::Prepared;
using coll_runner::PreparedFlow;
using coll_runner::Run;

struct CollectiveRunner::Impl {
  FlowNetwork* net;
  NcclModelParams params;
  AlgorithmRegistry registry = make_default_registry();
  std::vector<std::unique_ptr<const Prepared>> prepared;  // by PreparedCall::index
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash;
  std::vector<Run> runs;  // by run index; reused through free_runs
  std::vector<uint32_t> free_runs;
  // lower_bound's per-link scratch (indexed by LinkId; reset after each phase).
  std::vector<double> bound_bytes;
  std::vector<Time> bound_first;
  std::vector<uint32_t> bound_touched;
  // renamed_links()' link map φ and its inverse (kNoLink: unset), reset after each call.
  std::vector<uint32_t> phi, phi_inverse, phi_touched, phi_inverse_touched;
  // renamed_links()' first position of each GPU and server in the new ranks, valid where the stamp is
  // the call's.
  std::vector<uint32_t> gpu_first, gpu_stamp, host_first, host_stamp;
  uint32_t stamp = 0;
  // The first position of each rank's GPU (by_host: its server) in `ranks`, into `out`.
  void first_positions(const Topology& topo, std::span<const GpuId> ranks, bool by_host, std::vector<uint32_t>& out);
  std::vector<uint32_t> first_scratch;
  CollectiveRunner* self = nullptr;
  bool reuse_renamings = true;
  std::unordered_map<uint64_t, std::vector<uint32_t>> by_shape;  // prepare(): up to 2 per (op, root, bytes, size, requests)
  std::vector<LinkId> renamed;                                    // prepare(): a renamed call's links

  uint32_t prepare(const CollectiveCall& call);
  uint32_t new_run(uint32_t prep);
  void launch(uint32_t r);
  void finish_one(uint32_t r);
  void start_phase(uint32_t r);
};

}  // namespace plansim
