#include "hw/launch_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

namespace plansim::hw {

const char* to_string(KernelKind k) {
  switch (k) {
    case KernelKind::gemm: return "gemm";
    case KernelKind::attention: return "attention";
    case KernelKind::copy: return "copy";
  }
  return "?";
}

double KernelLaunch::flops() const {
  switch (kind) {
    case KernelKind::gemm: return dims.flops();
    case KernelKind::attention: return (backward ? 4 : 2) * dims.flops();
    case KernelKind::copy: return 0;
  }
  return 0;
}

int gemm_repeats(const OpCost& k) {
  const double per = k.dims.flops();
  if (!(per > 0)) return 0;
  const double r = k.flops / per;
  const double whole = std::round(r);
  if (whole < 1 || std::abs(r - whole) > 1e-6 * whole)
    throw std::invalid_argument(fmt::format("kernel '{}': {} FLOPs are not a whole number of {}x{}x{} (batch {}) products",
                                            k.name, k.flops, k.dims.m, k.dims.n, k.dims.k, k.dims.batch));
  return static_cast<int>(whole);
}

std::vector<uint32_t> channel_lanes(const std::vector<uint32_t>& send_order, const std::vector<uint32_t>& recv_order) {
  std::map<uint32_t, size_t> position;
  for (size_t i = 0; i < send_order.size(); ++i) position[send_order[i]] = i;
  // Patience sorting: each lane keeps the send position of its last message; a message joins the
  // first lane whose last position is below its own (lanes' tails stay increasing), else opens one.
  std::vector<size_t> tails;
  std::vector<uint32_t> lane;
  for (uint32_t tag : recv_order) {
    const size_t p = position.at(tag);
    size_t l = 0;
    while (l < tails.size() && tails[l] > p) ++l;
    if (l == tails.size()) tails.push_back(p);
    else tails[l] = p;
    lane.push_back(static_cast<uint32_t>(l));
  }
  return lane;
}

std::vector<int64_t> attention_chunks(const GemmDims& dims, double max_score_elems) {
  const auto batch = static_cast<int64_t>(std::llround(dims.batch));
  const double per = std::max(1.0, dims.m * dims.n);
  const auto chunk = std::clamp<int64_t>(static_cast<int64_t>(max_score_elems / per), 1, std::max<int64_t>(1, batch));
  std::vector<int64_t> out;
  for (int64_t left = batch; left > 0; left -= chunk) out.push_back(std::min(left, chunk));
  return out;
}

namespace {

std::vector<KernelLaunch> compute_kernels(const ComputeCost& cost, LaunchPlan& lp) {
  std::vector<KernelLaunch> out;
  for (const OpCost& k : cost.kernels) {
    const int repeats = gemm_repeats(k);
    if (repeats == 0) {
      out.push_back({KernelKind::copy, {}, k.hbm_bytes});
      lp.copy_bytes = std::max(lp.copy_bytes, std::min(k.hbm_bytes / 2, kCopyChunkBytes));
      continue;
    }
    const GemmDims& d = k.dims;
    if (k.cls == OpClass::attention) {
      if (repeats != 2 && repeats != 4)
        throw std::invalid_argument(fmt::format("attention kernel '{}' is {} products; the fused attention runs 2 "
                                                "(forward) or 4 (backward)",
                                                k.name, repeats));
      out.push_back({KernelKind::attention, d, 0, repeats == 4, true});
      lp.attention_qkv_elems = std::max(lp.attention_qkv_elems, std::max(d.m, d.n) * d.k * d.batch);
      lp.attention_stats_elems = std::max(lp.attention_stats_elems, d.m * d.batch);
      continue;
    }
    if (const std::string why = gemm_tiling_problem(d.m, d.n, d.k, lp.dtype); !why.empty())
      throw std::invalid_argument(fmt::format("kernel '{}' of '{}': {}", k.name, cost.name, why));
    lp.gemm_a_elems = std::max(lp.gemm_a_elems, d.m * d.k * d.batch);
    lp.gemm_b_elems = std::max(lp.gemm_b_elems, d.k * d.n * d.batch);
    lp.gemm_d_elems = std::max(lp.gemm_d_elems, d.m * d.n * d.batch);
    for (int i = 0; i < repeats; ++i) out.push_back({KernelKind::gemm, d, 0});
  }
  return out;
}

using Channel = std::pair<uint32_t, uint32_t>;  // (sender, receiver)

void add_touch(Communicator& c, OpKind kind, CommOp op, double bytes) {
  for (CommTouch& t : c.touches)
    if (t.kind == kind && t.comm == op) {
      t.bytes = std::max(t.bytes, bytes);
      return;
    }
  c.touches.push_back({kind, op, bytes});
}

// Greedy rounds of created communicators with disjoint ranks.
void plan_split_rounds(LaunchPlan& lp) {
  std::vector<std::vector<bool>> used;  // per round: which world ranks it already covers
  for (uint32_t c = 0; c < lp.communicators.size(); ++c) {
    if (!lp.communicators[c].created) continue;
    const auto& ranks = lp.communicators[c].ranks;
    size_t round = 0;
    while (round < used.size() && std::any_of(ranks.begin(), ranks.end(), [&](uint32_t r) { return used[round][r]; }))
      ++round;
    if (round == used.size()) {
      used.emplace_back(static_cast<size_t>(lp.world), false);
      lp.split_rounds.emplace_back();
    }
    for (uint32_t r : ranks) used[round][r] = true;
    lp.split_rounds[round].push_back(c);
  }
}

}  // namespace

LaunchPlan plan_launches(const CompiledPlan& plan, GemmDtype dtype) {
  if (plan.fold != 1 || static_cast<int>(plan.programs.size()) != plan.world)
    throw std::invalid_argument("the plan is TP-folded; the hardware runs every rank (compile with fold_tp = false)");
  LaunchPlan lp;
  lp.world = plan.world;
  lp.dtype = dtype;
  for (size_t g = 0; g < plan.groups.size(); ++g)
    lp.communicators.push_back({plan.groups[g].ranks, fmt::format("{} group {}", to_string(plan.groups[g].dim), g), false, {}});
  // PP channels in (sender, receiver) order, each split into lanes: deterministic communicator indices.
  std::map<Channel, std::vector<uint32_t>> send_tags, recv_tags;
  for (const Program& p : plan.programs)
    for (const ProgramOp& op : p.ops) {
      if (op.kind == OpKind::send) send_tags[{p.rank, op.peer}].push_back(op.tag);
      if (op.kind == OpKind::recv) recv_tags[{op.peer, p.rank}].push_back(op.tag);
    }
  std::map<std::pair<Channel, uint32_t>, uint32_t> lane_of;  // (channel, tag) -> communicator
  for (const auto& [ch, tags] : send_tags) {
    std::vector<uint32_t> a = tags, b = recv_tags[ch];
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    if (a != b || std::adjacent_find(a.begin(), a.end()) != a.end())
      throw std::invalid_argument(fmt::format("rank {} sends to rank {} messages (tags) its receives do not match one "
                                              "for one",
                                              ch.first, ch.second));
    const std::vector<uint32_t> lanes = channel_lanes(tags, recv_tags[ch]);
    const uint32_t count = lanes.empty() ? 0 : *std::max_element(lanes.begin(), lanes.end()) + 1;
    const auto first = static_cast<uint32_t>(lp.communicators.size());
    for (uint32_t l = 0; l < count; ++l)
      lp.communicators.push_back({{ch.first, ch.second},
                                  count == 1 ? fmt::format("pp {}->{}", ch.first, ch.second)
                                             : fmt::format("pp {}->{} lane {}", ch.first, ch.second, l),
                                  false,
                                  {}});
    for (size_t i = 0; i < lanes.size(); ++i) lane_of[{ch, recv_tags[ch][i]}] = first + lanes[i];
  }
  for (const auto& [ch, tags] : recv_tags)
    if (!tags.empty() && !send_tags.contains(ch))
      throw std::invalid_argument(fmt::format("rank {} receives from rank {}, which never sends to it", ch.second, ch.first));

  std::map<uint32_t, std::vector<KernelLaunch>> kernels_of_cost;
  for (const Program& p : plan.programs) {
    RankLaunches rl;
    rl.rank = p.rank;
    std::map<uint32_t, uint32_t> lane_stream;  // communicator -> stream of this rank
    for (uint32_t i = 0; i < p.ops.size(); ++i) {
      const ProgramOp& op = p.ops[i];
      Launch l;
      l.op = i;
      l.kind = op.kind;
      l.stream = static_cast<uint32_t>(op.stream);
      for (uint32_t d = 0; d < op.dep_count; ++d) {
        const uint32_t dep = p.deps[op.dep_begin + d];
        if (dep >= i)
          throw std::invalid_argument(fmt::format("rank {} op {} depends on a later op {}", p.rank, i, dep));
        l.waits.push_back(dep);
      }
      l.bytes = op.bytes;
      switch (op.kind) {
        case OpKind::compute: {
          auto it = kernels_of_cost.find(op.cost);
          if (it == kernels_of_cost.end()) it = kernels_of_cost.emplace(op.cost, compute_kernels(plan.costs[op.cost], lp)).first;
          l.kernels = it->second;
          break;
        }
        case OpKind::collective: {
          l.comm = op.comm;
          l.communicator = op.group;
          Communicator& c = lp.communicators[op.group];
          c.created = c.ranks.size() > 1;
          if (c.created) add_touch(c, OpKind::collective, op.comm, op.bytes);
          lp.comm_bytes = std::max(lp.comm_bytes, op.bytes);
          break;
        }
        case OpKind::host_copy:  // would be cudaMemcpyAsync to pinned host buffers: not built yet
          throw std::invalid_argument(
              "the plan offloads activations to host memory (training.activation_offload_layers), which "
              "plansim-hw does not run yet; set it to 0 to run the plan on GPUs");
        case OpKind::send:
        case OpKind::recv: {
          l.peer = op.peer;
          l.tag = op.tag;
          const Channel ch = op.kind == OpKind::send ? Channel{p.rank, op.peer} : Channel{op.peer, p.rank};
          l.communicator = lane_of.at({ch, op.tag});
          Communicator& c = lp.communicators[l.communicator];
          c.created = true;
          add_touch(c, OpKind::send, CommOp::send_recv, op.bytes);
          auto [it, fresh] = lane_stream.emplace(l.communicator, rl.streams);
          if (fresh) ++rl.streams;
          l.stream = it->second;
          lp.comm_bytes = std::max(lp.comm_bytes, op.bytes);
          break;
        }
      }
      rl.launches.push_back(std::move(l));
    }
    lp.ranks.push_back(std::move(rl));
  }
  plan_split_rounds(lp);
  return lp;
}

}  // namespace plansim::hw
