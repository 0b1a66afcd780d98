#include "hw/launch_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>

namespace plansim::hw {

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
    lp.gemm_a_elems = std::max(lp.gemm_a_elems, d.m * d.k * d.batch);
    lp.gemm_b_elems = std::max(lp.gemm_b_elems, d.k * d.n * d.batch);
    lp.gemm_d_elems = std::max(lp.gemm_d_elems, d.m * d.n * d.batch);
    for (int i = 0; i < repeats; ++i) {
      out.push_back({KernelKind::gemm, d, 0});
      if (k.cls == OpClass::attention && i % 2 == 0) out.push_back({KernelKind::softmax, d, 0});
    }
  }
  return out;
}

using Channel = std::pair<uint32_t, uint32_t>;  // (sender, receiver)

}  // namespace

LaunchPlan plan_launches(const CompiledPlan& plan) {
  if (plan.fold != 1 || static_cast<int>(plan.programs.size()) != plan.world)
    throw std::invalid_argument("the plan is TP-folded; the hardware runs every rank (compile with fold_tp = false)");
  LaunchPlan lp;
  lp.world = plan.world;
  for (size_t g = 0; g < plan.groups.size(); ++g)
    lp.communicators.push_back({plan.groups[g].ranks, fmt::format("{} group {}", to_string(plan.groups[g].dim), g)});
  // PP channels in (sender, receiver) order: deterministic communicator indices.
  std::map<Channel, std::vector<uint32_t>> send_tags, recv_tags;
  for (const Program& p : plan.programs)
    for (const ProgramOp& op : p.ops) {
      if (op.kind == OpKind::send) send_tags[{p.rank, op.peer}].push_back(op.tag);
      if (op.kind == OpKind::recv) recv_tags[{op.peer, p.rank}].push_back(op.tag);
    }
  std::map<Channel, uint32_t> channel_comm;
  for (const auto& [ch, tags] : send_tags) {
    if (recv_tags[ch] != tags)
      throw std::invalid_argument(fmt::format("rank {} sends to rank {} in a tag order its receives do not follow",
                                              ch.first, ch.second));
    channel_comm[ch] = static_cast<uint32_t>(lp.communicators.size());
    lp.communicators.push_back({{ch.first, ch.second}, fmt::format("pp {}->{}", ch.first, ch.second)});
  }
  for (const auto& [ch, tags] : recv_tags)
    if (!tags.empty() && !channel_comm.contains(ch))
      throw std::invalid_argument(fmt::format("rank {} receives from rank {}, which never sends to it", ch.second, ch.first));

  std::vector<std::vector<bool>> used;  // per round: which world ranks it already covers
  for (uint32_t c = 0; c < lp.communicators.size(); ++c) {
    const auto& ranks = lp.communicators[c].ranks;
    size_t round = 0;
    while (round < used.size() &&
           std::any_of(ranks.begin(), ranks.end(), [&](uint32_t r) { return used[round][r]; }))
      ++round;
    if (round == used.size()) {
      used.emplace_back(static_cast<size_t>(plan.world), false);
      lp.split_rounds.emplace_back();
    }
    for (uint32_t r : ranks) used[round][r] = true;
    lp.split_rounds[round].push_back(c);
  }

  std::map<uint32_t, std::vector<KernelLaunch>> kernels_of_cost;
  for (const Program& p : plan.programs) {
    RankLaunches rl;
    rl.rank = p.rank;
    std::map<uint32_t, uint32_t> channel_stream;  // communicator -> stream of this rank
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
        case OpKind::collective:
          l.comm = op.comm;
          l.communicator = op.group;
          lp.comm_bytes = std::max(lp.comm_bytes, op.bytes);
          break;
        case OpKind::send:
        case OpKind::recv: {
          l.peer = op.peer;
          const Channel ch = op.kind == OpKind::send ? Channel{p.rank, op.peer} : Channel{op.peer, p.rank};
          l.communicator = channel_comm.at(ch);
          auto [it, fresh] = channel_stream.emplace(l.communicator, rl.streams);
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
  return lp;
}

}  // namespace plansim::hw
