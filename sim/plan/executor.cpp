#include "sim/plan/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <tuple>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

struct RankState {
  std::vector<uint32_t> waiting;    // unmet deps + stream predecessor
  std::vector<uint32_t> next_on_stream;
  std::vector<uint32_t> dep_offset;  // dependents CSR
  std::vector<uint32_t> dependents;
  std::vector<uint32_t> rendezvous;  // per op: its Rendezvous (collective, send, recv), kNone for compute
  int active_comm = 0;
  size_t done = 0;
};

// Where the members of one transfer meet: a collective (group, seq) or a send/recv pair. Built
// once before the run, so matching costs an index instead of a hash-map insert and erase; it also
// holds the transfer's state while in flight (the completion callback carries only its index).
struct Rendezvous {
  uint32_t needed = 0;         // members that must issue it (a group's simulated members; 2 for p2p)
  uint32_t arrived = 0;
  uint32_t members_begin = 0;  // its members in arrival order: Engine::members_[begin, begin + needed)
  uint32_t group = kNoGroup;   // collective: CompiledPlan::groups index
  int copies_left = 0;         // replicas still in flight
};

class Engine {
 public:
  Engine(const CompiledPlan& plan, const ComputeModel& cm, CommService& comm, Simulation& sim)
      : plan_(plan), cm_(cm), comm_(comm), sim_(sim) {
    for (const auto& c : plan.costs) result_.compute_cost.push_back(cm.ops_time(c.kernels));
    result_.timings.resize(plan.programs.size());
    ranks_.resize(plan.programs.size());
    for (size_t r = 0; r < plan.programs.size(); ++r) init_rank(r);
    init_collectives();
    init_p2p();
    members_.resize(members_size_);
  }

  ExecutionResult run() {
    for (size_t r = 0; r < plan_.programs.size(); ++r)
      for (uint32_t i = 0; i < plan_.programs[r].ops.size(); ++i)
        if (ranks_[r].waiting[i] == 0) ready(static_cast<uint32_t>(r), i);
    sim_.run();
    for (size_t r = 0; r < plan_.programs.size(); ++r) {
      const auto& p = plan_.programs[r];
      if (ranks_[r].done == p.ops.size()) continue;
      for (uint32_t i = 0; i < p.ops.size(); ++i)
        if (result_.timings[r][i].end == Time::infinite())
          throw InternalError(fmt::format("plan deadlocks: rank {} op {} ({} on {}) never ran", r, i,
                                          static_cast<int>(p.ops[i].kind), to_string(p.ops[i].stream)));
    }
    for (const auto& t : result_.timings)
      for (const auto& o : t) result_.iteration = std::max(result_.iteration, o.end);
    result_.events = sim_.events_processed();
    return std::move(result_);
  }

 private:
  void init_rank(size_t r) {
    const Program& p = plan_.programs[r];
    RankState& st = ranks_[r];
    const size_t n = p.ops.size();
    st.waiting.assign(n, 0);
    st.next_on_stream.assign(n, kNone);
    st.rendezvous.assign(n, kNone);
    result_.timings[r].assign(n, OpTiming{Time::infinite(), Time::infinite()});
    std::vector<uint32_t> last(kStreamCount, kNone);
    std::vector<uint32_t> count(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const ProgramOp& op = p.ops[i];
      auto& prev = last[static_cast<size_t>(op.stream)];
      const bool p2p = op.kind == OpKind::send || op.kind == OpKind::recv;  // isend/irecv: deps only
      if (!p2p && prev != kNone) {
        st.next_on_stream[prev] = i;
        ++st.waiting[i];
      }
      if (!p2p) prev = i;
      st.waiting[i] += op.dep_count;
      for (uint32_t k = 0; k < op.dep_count; ++k) {
        const uint32_t d = p.deps[op.dep_begin + k];
        PLANSIM_ASSERT(d < i, "a program op depends on a later op");
        ++count[d + 1];
      }
    }
    for (size_t i = 0; i < n; ++i) count[i + 1] += count[i];
    st.dep_offset = count;
    st.dependents.assign(count[n], 0);
    std::vector<uint32_t> fill(count.begin(), count.end() - 1);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t k = 0; k < p.ops[i].dep_count; ++k) st.dependents[fill[p.deps[p.ops[i].dep_begin + k]]++] = i;
  }

  // One rendezvous per (group, seq): the seq-th op every member issues on the group. Also each
  // group's member GPUs, once per TP-folding replica when its transfers are replicated.
  void init_collectives() {
    const size_t groups = plan_.groups.size();
    std::vector<uint32_t> seqs(groups, 0);
    for (const Program& p : plan_.programs)
      for (const ProgramOp& op : p.ops)
        if (op.kind == OpKind::collective) seqs[op.group] = std::max(seqs[op.group], op.seq + 1);
    group_base_.assign(groups, 0);
    group_gpus_.resize(groups);
    for (size_t g = 0; g < groups; ++g) {
      const Group& grp = plan_.groups[g];
      group_base_[g] = static_cast<uint32_t>(rv_.size());
      for (uint32_t q = 0; q < seqs[g]; ++q) add_rendezvous(grp.simulated_members, static_cast<uint32_t>(g));
      const int copies = replicated(grp) ? plan_.fold : 1;
      for (int j = 0; j < copies; ++j)
        for (uint32_t m : grp.ranks) group_gpus_[g].push_back(GpuId(m + static_cast<uint32_t>(j * plan_.fold_stride)));
    }
    for (size_t r = 0; r < plan_.programs.size(); ++r) {
      const auto& ops = plan_.programs[r].ops;
      for (uint32_t i = 0; i < ops.size(); ++i)
        if (ops[i].kind == OpKind::collective) ranks_[r].rendezvous[i] = group_base_[ops[i].group] + ops[i].seq;
    }
  }

  // A send and a recv meet when they name the same (sender, receiver, tag): sort all of them by
  // that key and give each run of equal keys one rendezvous of two members.
  void init_p2p() {
    struct End {
      uint32_t src, dst, tag, program, op;
    };
    std::vector<End> ends;
    for (size_t r = 0; r < plan_.programs.size(); ++r) {
      const Program& p = plan_.programs[r];
      for (uint32_t i = 0; i < p.ops.size(); ++i) {
        const ProgramOp& op = p.ops[i];
        if (op.kind != OpKind::send && op.kind != OpKind::recv) continue;
        const bool send = op.kind == OpKind::send;
        ends.push_back({send ? p.rank : op.peer, send ? op.peer : p.rank, op.tag, static_cast<uint32_t>(r), i});
      }
    }
    auto key = [](const End& e) { return std::tie(e.src, e.dst, e.tag); };
    std::sort(ends.begin(), ends.end(), [&](const End& a, const End& b) {
      return std::tie(a.src, a.dst, a.tag, a.program, a.op) < std::tie(b.src, b.dst, b.tag, b.program, b.op);
    });
    for (size_t k = 0; k < ends.size();) {
      size_t e = k + 1;
      while (e < ends.size() && key(ends[e]) == key(ends[k])) ++e;
      PLANSIM_ASSERT(e - k <= 2, fmt::format("more than one send/recv pair {} -> {} with tag {}", ends[k].src,
                                             ends[k].dst, ends[k].tag));
      const uint32_t id = add_rendezvous(2, kNoGroup);
      for (; k < e; ++k) ranks_[ends[k].program].rendezvous[ends[k].op] = id;
    }
  }

  uint32_t add_rendezvous(uint32_t needed, uint32_t group) {
    rv_.push_back(Rendezvous{needed, 0, static_cast<uint32_t>(members_size_), group, 0});
    members_size_ += needed;
    return static_cast<uint32_t>(rv_.size() - 1);
  }

  // With TP folding, transfers of a group whose members all have programs (no TP sibling inside)
  // are replayed for every TP sibling.
  [[nodiscard]] static bool replicated(const Group& g) { return g.simulated_members == g.ranks.size(); }

  void ready(uint32_t r, uint32_t i) {
    const ProgramOp& op = plan_.programs[r].ops[i];
    if (op.kind == OpKind::compute) {
      Time t = result_.compute_cost[op.cost];
      if (ranks_[r].active_comm > 0) t = Time::from_seconds(t.seconds() * (1 + cm_.params().comm_slowdown));
      result_.timings[r][i].start = sim_.now();
      sim_.after(t, [this, r, i] { complete(r, i); });
      return;
    }
    const uint32_t id = ranks_[r].rendezvous[i];
    Rendezvous& rv = rv_[id];
    members_[rv.members_begin + rv.arrived++] = {r, i};
    if (rv.arrived == rv.needed) launch(id, op);
  }

  // Starts a transfer; with TP folding, transfers whose members all have programs (no TP sibling
  // inside) are replayed for every TP sibling (ranks shifted by j·fold_stride) and the members
  // complete when the last copy lands (the next TP collective would synchronise the siblings there anyway).
  void launch(uint32_t id, const ProgramOp& op) {
    Rendezvous& rv = rv_[id];
    for (uint32_t k = 0; k < rv.needed; ++k) {
      auto [r, i] = members_[rv.members_begin + k];
      result_.timings[r][i].start = sim_.now();
      ++ranks_[r].active_comm;
    }
    CommRequest req;
    req.bytes = Bytes(op.bytes);
    int copies = 1;
    std::array<GpuId, 2> pair{}, shifted{};  // send/recv: (sender, receiver), and a replica's
    if (op.kind == OpKind::collective) {
      const Group& g = plan_.groups[rv.group];
      req.op = op.comm;
      req.dim = g.dim;
      if (replicated(g)) copies = plan_.fold;
    } else {
      // `op` is the last member to arrive (see ready); either end names the same pair.
      const uint32_t self = plan_.programs[members_[rv.members_begin + rv.needed - 1].first].rank;
      pair = op.kind == OpKind::send ? std::array{GpuId(self), GpuId(op.peer)} : std::array{GpuId(op.peer), GpuId(self)};
      req.op = CommOp::send_recv;
      req.dim = Dim::pp;
      copies = plan_.fold;
    }
    rv.copies_left = copies;
    for (int j = 0; j < copies; ++j) {
      if (op.kind == OpKind::collective) {
        const size_t n = plan_.groups[rv.group].ranks.size();
        req.ranks = std::span<const GpuId>(group_gpus_[rv.group]).subspan(static_cast<size_t>(j) * n, n);
        req.group = j == 0 ? rv.group : kNoGroup;
      } else {
        const auto shift = static_cast<uint32_t>(j * plan_.fold_stride);
        shifted = {GpuId(pair[0].value + shift), GpuId(pair[1].value + shift)};
        req.ranks = shifted;
      }
      ++result_.comm_calls;
      comm_.start(req, [this, id] { transfer_done(id); });
    }
  }

  void transfer_done(uint32_t id) {
    Rendezvous& rv = rv_[id];
    if (--rv.copies_left > 0) return;
    for (uint32_t k = 0; k < rv.needed; ++k) {
      auto [r, i] = members_[rv.members_begin + k];
      --ranks_[r].active_comm;
      complete(r, i);
    }
  }

  void complete(uint32_t r, uint32_t i) {
    RankState& st = ranks_[r];
    result_.timings[r][i].end = sim_.now();
    ++st.done;
    for (uint32_t k = st.dep_offset[i]; k < st.dep_offset[i + 1]; ++k) {
      const uint32_t d = st.dependents[k];
      if (--st.waiting[d] == 0) ready(r, d);
    }
    const uint32_t n = st.next_on_stream[i];
    if (n != kNone && --st.waiting[n] == 0) ready(r, n);
  }

  const CompiledPlan& plan_;
  const ComputeModel& cm_;
  CommService& comm_;
  Simulation& sim_;
  std::vector<RankState> ranks_;
  std::vector<Rendezvous> rv_;
  std::vector<std::pair<uint32_t, uint32_t>> members_;  // (program, op) per rendezvous, see Rendezvous
  size_t members_size_ = 0;
  std::vector<uint32_t> group_base_;             // rendezvous of (group, seq) = group_base_[group] + seq
  std::vector<std::vector<GpuId>> group_gpus_;   // per group: member GPUs, then each replica's
  ExecutionResult result_;
};

}  // namespace

ExecutionResult execute(const CompiledPlan& plan, const ComputeModel& compute, CommService& comm, Simulation& sim) {
  return Engine(plan, compute, comm, sim).run();
}

}  // namespace plansim
