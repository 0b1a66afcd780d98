#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "sim/core/assert.hpp"
#include "sim/plan/executor_engine.hpp"
#include "sim/plan/p2p_pairs.hpp"

namespace plansim::exec {

Engine::Engine(const CompiledPlan& plan, const ComputeModel& cm, CommService& comm, Simulation& sim, bool replay)
    : plan_(plan), comm_(comm), sim_(sim), replay_(replay) {
  for (const auto& c : plan.costs) result_.compute_cost.push_back(cm.ops_time(c.kernels));
  slowdown_ = 1 + cm.params().comm_slowdown;
  first_op_ = global_op_offsets(plan);
  static_assert(kMany == 1U << 31, "global_op_offsets bounds op indices to 31 bits");
  const uint32_t total = first_op_.back();
  ops_.assign(total, OpState{});
  active_comm_.assign(plan.programs.size(), 0);
  running_.resize(plan.programs.size());
  result_.timings.resize(plan.programs.size());
  for (size_t r = 0; r < plan.programs.size(); ++r)
    result_.timings[r].assign(plan.programs[r].ops.size(), OpTiming{Time::infinite(), Time::infinite()});
  for (size_t r = 0; r < plan.programs.size(); ++r) init_rank(r);
  init_collectives();
  init_p2p();
  members_.resize(members_size_);
}

void Engine::init_rank(size_t r) {
  const Program& p = plan_.programs[r];
  const uint32_t base = first_op_[r];
  const auto n = static_cast<uint32_t>(p.ops.size());
  std::vector<uint32_t> last(kStreamCount, kNone);
  std::vector<uint32_t> count(n, 0);  // how many ops depend on each
  for (uint32_t i = 0; i < n; ++i) {
    const ProgramOp& op = p.ops[i];
    OpState& o = ops_[base + i];
    if (op.kind == OpKind::compute || op.kind == OpKind::host_copy) o.work = kCompute | op.cost;
    auto& prev = last[static_cast<size_t>(op.stream)];
    const bool p2p = op.kind == OpKind::send || op.kind == OpKind::recv;  // isend/irecv: deps only
    if (!p2p && prev != kNone) {
      ops_[base + prev].next_on_stream = base + i;
      ++o.waiting;
    }
    if (!p2p) prev = i;
    o.waiting += op.dep_count;
    for (uint32_t k = 0; k < op.dep_count; ++k) {
      const uint32_t d = p.deps[op.dep_begin + k];
      PLANSIM_ASSERT(d < i, "a program op depends on a later op");
      ++count[d];
    }
  }
  // One dependent: inline; several: a list in more_, in program order.
  std::vector<uint32_t> fill(n, kNone);  // where d's next dependent goes in more_
  for (uint32_t d = 0; d < n; ++d)
    if (count[d] > 1) {
      ops_[base + d].dependent = kMany | static_cast<uint32_t>(more_.size());
      more_.push_back(count[d]);
      fill[d] = static_cast<uint32_t>(more_.size());
      more_.resize(more_.size() + count[d]);
    }
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t k = 0; k < p.ops[i].dep_count; ++k) {
      const uint32_t d = p.deps[p.ops[i].dep_begin + k];
      if (fill[d] == kNone) ops_[base + d].dependent = base + i;
      else more_[fill[d]++] = base + i;
    }
}

void Engine::init_collectives() {
  const size_t groups = plan_.groups.size();
  std::vector<uint32_t> seqs(groups, 0);
  for (const Program& p : plan_.programs)
    for (const ProgramOp& op : p.ops)
      if (op.kind == OpKind::collective) seqs[op.group] = std::max(seqs[op.group], op.seq + 1);
  group_base_.assign(groups, kNone);
  group_gpus_.resize(groups);
  for (size_t g = 0; g < groups; ++g) {
    const Group& grp = plan_.groups[g];
    if (grp.simulated_members > 1 || replicated(grp)) {
      group_base_[g] = static_cast<uint32_t>(rv_.size());
      for (uint32_t q = 0; q < seqs[g]; ++q) add_rendezvous(grp.simulated_members).group = static_cast<uint32_t>(g);
    }
    const int copies = replicated(grp) && replay_ ? plan_.fold : 1;
    for (int j = 0; j < copies; ++j)
      for (uint32_t m : grp.ranks) group_gpus_[g].push_back(GpuId(m + static_cast<uint32_t>(j * plan_.fold_stride)));
  }
  std::vector<std::vector<uint32_t>> solos_of(groups);  // per group: its Solo entries
  for (size_t r = 0; r < plan_.programs.size(); ++r) {
    const auto& ops = plan_.programs[r].ops;
    for (uint32_t i = 0; i < ops.size(); ++i) {
      const ProgramOp& op = ops[i];
      if (op.kind != OpKind::collective) continue;
      if (group_base_[op.group] != kNone) {
        join(r, i, group_base_[op.group] + op.seq);
        continue;
      }
      auto& mine = solos_of[op.group];
      auto it = std::find_if(mine.begin(), mine.end(),
                             [&](uint32_t k) { return solos_[k].comm == op.comm && solos_[k].bytes == op.bytes; });
      if (it == mine.end()) {
        const Group& grp = plan_.groups[op.group];
        solos_.push_back(Solo{group_gpus_[op.group].data(), static_cast<uint32_t>(grp.ranks.size()), op.group,
                              op.bytes, op.comm, grp.dim});
        it = mine.insert(mine.end(), static_cast<uint32_t>(solos_.size() - 1));
      }
      ops_[first_op_[r] + i].work = kSolo | *it;
    }
  }
  PLANSIM_ASSERT(rv_.size() < kSolo && solos_.size() < kSolo, "too many transfers for 30-bit indices");
}

void Engine::init_p2p() {
  for (const P2pPair& pair : match_send_recv(plan_)) {
    PLANSIM_ASSERT(pair.ends.size() <= 2,
                   fmt::format("more than one send/recv pair {} -> {} with tag {}", pair.src, pair.dst, pair.tag));
    Rendezvous& rv = add_rendezvous(2);
    rv.src = GpuId(pair.src);
    rv.dst = GpuId(pair.dst);
    const auto id = static_cast<uint32_t>(rv_.size() - 1);
    for (const P2pEnd& e : pair.ends) join(e.program, e.op, id);
  }
}

Rendezvous& Engine::add_rendezvous(uint32_t needed) {
  Rendezvous& rv = rv_.emplace_back();
  rv.needed = needed;
  rv.members_begin = static_cast<uint32_t>(members_size_);
  members_size_ += needed;
  return rv;
}

void Engine::join(size_t r, uint32_t i, uint32_t id) {
  const ProgramOp& op = plan_.programs[r].ops[i];
  Rendezvous& rv = rv_[id];
  if (rv.known)
    PLANSIM_ASSERT(rv.comm == op.comm && rv.bytes == op.bytes,
                   fmt::format("rank {} op {}: the members of one transfer disagree on its operation or size",
                               plan_.programs[r].rank, i));
  rv.known = true;
  rv.comm = op.comm;
  rv.bytes = op.bytes;
  ops_[first_op_[r] + i].work = id;
}

}  // namespace plansim::exec
