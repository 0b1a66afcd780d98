#include "sim/report/plan_bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>
#include <tuple>

#include "sim/coll/collective_runner.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/core/assert.hpp"
#include "sim/core/error.hpp"
#include "sim/net/flow_network.hpp"
#include "sim/plan/p2p_pairs.hpp"
#include "sim/plan/plan_compiler.hpp"

namespace plansim {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

CollOp coll_op(CommOp c) {
  switch (c) {
    case CommOp::all_reduce: return CollOp::all_reduce;
    case CommOp::all_gather: return CollOp::all_gather;
    case CommOp::reduce_scatter: return CollOp::reduce_scatter;
    case CommOp::all_to_all: return CollOp::all_to_all;
    case CommOp::send_recv: return CollOp::send_recv;
  }
  return CollOp::send_recv;
}

// Where the members of one transfer meet (a collective (group, seq) or a send/recv pair).
struct Meeting {
  uint32_t needed = 0;
  uint32_t arrived = 0;
  uint32_t members_begin = 0;  // Evaluator::members_[begin, begin + needed): global op indices
  Time start;                  // latest member's ready time so far
  Time duration;
};

// Transfer durations, each distinct call bounded once. With TP folding a replicated transfer is
// bounded as the executed rank's own copy (replica 0): the DAG is that of the executed ranks.
class TransferBounds {
 public:
  TransferBounds(const CompiledPlan& plan, const Topology& topo, const NcclModelParams* nccl)
      : plan_(plan), net_(sim_, topo), runner_(net_, nccl ? *nccl : NcclModelParams{}) {}

  Time collective(uint32_t group, CommOp op, double bytes) {
    const auto key = std::make_tuple(group, static_cast<int>(op), bytes);
    if (auto it = collectives_.find(key); it != collectives_.end()) return it->second;
    CollectiveCall call;
    call.op = coll_op(op);
    call.bytes = Bytes(bytes);
    for (uint32_t m : plan_.groups[group].ranks) call.ranks.push_back(GpuId(m));
    return collectives_.emplace(key, runner_.lower_bound(runner_.prepare(call))).first->second;
  }

  Time p2p(uint32_t src, uint32_t dst, double bytes) {
    const auto key = std::make_tuple(src, dst, bytes);
    if (auto it = pairs_.find(key); it != pairs_.end()) return it->second;
    CollectiveCall call;
    call.op = CollOp::send_recv;
    call.bytes = Bytes(bytes);
    call.ranks = {GpuId(src), GpuId(dst)};
    return pairs_.emplace(key, runner_.lower_bound(runner_.prepare(call))).first->second;
  }

  [[nodiscard]] size_t distinct() const { return collectives_.size() + pairs_.size(); }

 private:
  const CompiledPlan& plan_;
  Simulation sim_;
  FlowNetwork net_;
  CollectiveRunner runner_;
  std::map<std::tuple<uint32_t, int, double>, Time> collectives_;
  std::map<std::tuple<uint32_t, uint32_t, double>, Time> pairs_;
};

// The longest path, by Kahn's algorithm over every rank's ops (global index: first_[rank] + op).
class Evaluator {
 public:
  Evaluator(const CompiledPlan& plan, const ComputeModel& cm, TransferBounds& transfers)
      : plan_(plan), transfers_(transfers) {
    for (const auto& c : plan.costs) compute_.push_back(cm.ops_time(c.kernels));
    first_ = global_op_offsets(plan);
    const uint32_t total = first_.back();
    waiting_.assign(total, 0);
    ready_.assign(total, Time::zero());
    end_.assign(total, Time::infinite());
    meeting_of_.assign(total, kNone);
    succ_begin_.assign(total + 1, 0);
    link_successors();
    init_collectives();
    init_p2p();
    members_.resize(members_size_);
  }

  Time run() {
    std::vector<uint32_t> stack;
    for (uint32_t g = 0; g < waiting_.size(); ++g)
      if (waiting_[g] == 0) stack.push_back(g);
    while (!stack.empty()) {
      const uint32_t g = stack.back();
      stack.pop_back();
      if (meeting_of_[g] == kNone) {
        end_[g] = ready_[g] + duration_[g];
        complete(g, stack);
        continue;
      }
      Meeting& m = meetings_[meeting_of_[g]];
      members_[m.members_begin + m.arrived++] = g;
      m.start = std::max(m.start, ready_[g]);
      if (m.arrived < m.needed) continue;
      for (uint32_t k = 0; k < m.needed; ++k) {
        const uint32_t member = members_[m.members_begin + k];
        end_[member] = m.start + m.duration;
        complete(member, stack);
      }
    }
    Time iteration = Time::zero();
    for (uint32_t r = 0; r + 1 < first_.size(); ++r)
      for (uint32_t g = first_[r]; g < first_[r + 1]; ++g) {
        if (end_[g] == Time::infinite())
          throw InternalError(fmt::format("plan deadlocks: rank {} op {} never ends in the bound's DAG",
                                          plan_.programs[r].rank, g - first_[r]));
        iteration = std::max(iteration, end_[g]);
      }
    return iteration;
  }

  [[nodiscard]] size_t ops() const { return waiting_.size(); }

 private:
  // Successors of each op (its dependents and its stream successor) in CSR form, and durations of
  // compute and of collectives without a rendezvous.
  void link_successors() {
    std::vector<std::pair<uint32_t, uint32_t>> edges;  // (from, to)
    duration_.assign(waiting_.size(), Time::zero());
    for (size_t r = 0; r < plan_.programs.size(); ++r) {
      const Program& p = plan_.programs[r];
      const uint32_t base = first_[r];
      std::array<uint32_t, kStreamCount> last;
      last.fill(kNone);
      for (uint32_t i = 0; i < p.ops.size(); ++i) {
        const ProgramOp& op = p.ops[i];
        if (op.kind == OpKind::compute || op.kind == OpKind::host_copy) duration_[base + i] = compute_[op.cost];
        const bool async = op.kind == OpKind::send || op.kind == OpKind::recv;
        auto& prev = last[static_cast<size_t>(op.stream)];
        if (!async && prev != kNone) edges.emplace_back(base + prev, base + i);
        if (!async) prev = i;
        for (uint32_t k = 0; k < op.dep_count; ++k) edges.emplace_back(base + p.deps[op.dep_begin + k], base + i);
      }
    }
    for (const auto& e : edges) {
      ++succ_begin_[e.first + 1];
      ++waiting_[e.second];
    }
    for (size_t g = 1; g < succ_begin_.size(); ++g) succ_begin_[g] += succ_begin_[g - 1];
    succ_.resize(edges.size());
    std::vector<uint32_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
    for (const auto& e : edges) succ_[fill[e.first]++] = e.second;
  }

  Meeting& add_meeting(uint32_t needed, Time duration) {
    Meeting& m = meetings_.emplace_back();
    m.needed = needed;
    m.duration = duration;
    m.members_begin = static_cast<uint32_t>(members_size_);
    members_size_ += needed;
    return m;
  }

  // Collectives of groups with several simulated members meet per (group, seq); the others (a TP
  // collective with TP folded) take their duration alone.
  void init_collectives() {
    std::vector<uint32_t> seqs(plan_.groups.size(), 0);
    for (const Program& p : plan_.programs)
      for (const ProgramOp& op : p.ops)
        if (op.kind == OpKind::collective) seqs[op.group] = std::max(seqs[op.group], op.seq + 1);
    std::vector<uint32_t> base(plan_.groups.size(), kNone);
    for (size_t r = 0; r < plan_.programs.size(); ++r) {
      const auto& ops = plan_.programs[r].ops;
      for (uint32_t i = 0; i < ops.size(); ++i) {
        const ProgramOp& op = ops[i];
        if (op.kind != OpKind::collective) continue;
        const Group& grp = plan_.groups[op.group];
        const Time d = transfers_.collective(op.group, op.comm, op.bytes);
        if (grp.simulated_members <= 1) {
          duration_[first_[r] + i] = d;
          continue;
        }
        if (base[op.group] == kNone) {
          base[op.group] = static_cast<uint32_t>(meetings_.size());
          for (uint32_t q = 0; q < seqs[op.group]; ++q) add_meeting(grp.simulated_members, Time::zero());
        }
        const uint32_t id = base[op.group] + op.seq;
        meetings_[id].duration = std::max(meetings_[id].duration, d);  // members agree (the executor asserts it)
        meeting_of_[first_[r] + i] = id;
      }
    }
  }

  // A send and a recv meet when they name the same (sender, receiver, tag).
  void init_p2p() {
    for (const P2pPair& pair : match_send_recv(plan_)) {
      PLANSIM_ASSERT(pair.ends.size() == 2, fmt::format("send/recv {} -> {} tag {} is not one matched pair", pair.src,
                                                        pair.dst, pair.tag));
      const ProgramOp& op = plan_.programs[pair.ends[0].program].ops[pair.ends[0].op];
      add_meeting(2, transfers_.p2p(pair.src, pair.dst, op.bytes));
      for (const P2pEnd& e : pair.ends) meeting_of_[first_[e.program] + e.op] = static_cast<uint32_t>(meetings_.size() - 1);
    }
  }

  void complete(uint32_t g, std::vector<uint32_t>& stack) {
    for (uint32_t k = succ_begin_[g]; k < succ_begin_[g + 1]; ++k) {
      const uint32_t s = succ_[k];
      ready_[s] = std::max(ready_[s], end_[g]);
      if (--waiting_[s] == 0) stack.push_back(s);
    }
  }

  const CompiledPlan& plan_;
  TransferBounds& transfers_;
  std::vector<Time> compute_;       // per CompiledPlan::costs entry
  std::vector<uint32_t> first_;     // per program: its first op's global index; then the total
  std::vector<uint32_t> waiting_;   // unended predecessors
  std::vector<Time> ready_;         // latest predecessor end so far
  std::vector<Time> end_;
  std::vector<Time> duration_;      // compute and solo collectives
  std::vector<uint32_t> meeting_of_;  // kNone: no rendezvous
  std::vector<uint32_t> succ_begin_, succ_;
  std::vector<Meeting> meetings_;
  std::vector<uint32_t> members_;
  size_t members_size_ = 0;
};

}  // namespace

PlanBound bound_programs(const CompiledPlan& plan, const ComputeModel& compute, const Topology& topo,
                         const NcclModelParams* nccl) {
  TransferBounds transfers(plan, topo, nccl);
  Evaluator ev(plan, compute, transfers);
  PlanBound b;
  b.iteration = ev.run();
  b.programs = plan.programs.size();
  b.ops = ev.ops();
  b.transfers = transfers.distinct();
  return b;
}

PlanBound bound_plan(const Scenario& s, const Topology& topo) {
  const auto t0 = std::chrono::steady_clock::now();
  ComputeParams compute_params = ComputeParams::for_scenario(topo.gpu_spec(), s);
  compute_params.host_link = topo.host_link_bandwidth();
  const ComputeModel compute(compute_params);
  const CompiledPlan plan = compile_plan(s, CompileOptions{.fold_tp = s.parallel.tp > 1, .first_replica_only = true});
  PlanBound b = bound_programs(plan, compute, topo, s.calibration.collectives.get());
  b.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

}  // namespace plansim
