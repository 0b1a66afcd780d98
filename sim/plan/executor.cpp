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

// What the run reads per op in one 16-byte record (four to a cache line), so that advancing a rank
// by one op costs about one cache miss: millions of ops of thousands of ranks interleave, far beyond
// any cache (and the flow network evicts what is left), so the executor is bound by memory, not by
// arithmetic. Start and end times are only written, straight into the result.
// Ops of all ranks sit in one array, named by a global index (rank r's op i is first_op_[r] + i),
// so that reaching one needs no per-rank record. Most ops have one dependent (the next op on
// another stream), kept inline; the few with more list them in Engine::more_.
struct OpState {
  uint32_t waiting = 0;             // unmet deps + stream predecessor
  uint32_t next_on_stream = kNone;  // global index
  uint32_t dependent = kNone;       // global index; kMany | k: more_[k] = how many, then them
  uint32_t work = 0;                // compute: kCompute | cost; solo collective: kSolo | Solo; else its Rendezvous
};
constexpr uint32_t kCompute = 1U << 31;
constexpr uint32_t kSolo = 1U << 30;
constexpr uint32_t kMany = 1U << 31;

// A collective whose group has one simulated member and is not replicated (a TP collective with
// TP folded: most transfers of a large plan) needs no rendezvous: its op names one of these, of
// which a group has a few (one per distinct operation and size), so they stay in cache, where
// per-(group, seq) records would stream through memory once each. It holds the whole request, so
// that launching one reads this record only (not the group and its member list as well).
struct Solo {
  const GpuId* ranks = nullptr;  // the group's members (Engine::group_gpus_)
  uint32_t size = 0;
  uint32_t group = 0;
  double bytes = 0;
  CommOp comm = CommOp::all_reduce;
  Dim dim = Dim::tp;
};

// Where the members of one transfer meet: a collective (group, seq) or a send/recv pair. Built
// once before the run with what the transfer needs (so matching costs an index instead of a
// hash-map insert and erase, and launching reads no ProgramOp); it also holds the transfer's
// state while in flight (the completion callback carries only its index).
struct Rendezvous {
  uint32_t needed = 0;         // members that must issue it (a group's simulated members; 2 for p2p)
  uint32_t arrived = 0;
  uint32_t members_begin = 0;  // its members (rank, global op) in arrival order: Engine::members_[begin, + needed)
  uint32_t group = kNoGroup;   // collective: CompiledPlan::groups index; kNoGroup for send/recv
  GpuId src, dst;              // send/recv: sender and receiver
  CommOp comm = CommOp::send_recv;
  bool known = false;          // comm and bytes set (by the first member seen)
  int copies = 0;              // replicas launched
  int copies_left = 0;         // replicas still in flight
  Time first_landed;           // when the first replica landed (TP folding's lockstep check)
  double bytes = 0;
};

// A compute op in progress. It does `remaining` picoseconds of work (its unslowed time) at rate 1,
// or 1/(1 + comm_slowdown) while one of its rank's transfers is in flight; when that changes, the
// work done so far is booked and its completion event replaced. A zero-length overlap costs
// nothing, so events that tie do not change durations.
struct RunningCompute {
  uint32_t op = 0;       // global index
  EventId done;          // its completion event
  double remaining = 0;  // unslowed picoseconds of work left at `since`
  Time since;
  bool slowed = false;
};

class Engine {
 public:
  Engine(const CompiledPlan& plan, const ComputeModel& cm, CommService& comm, Simulation& sim, bool replay)
      : plan_(plan), comm_(comm), sim_(sim), replay_(replay) {
    for (const auto& c : plan.costs) result_.compute_cost.push_back(cm.ops_time(c.kernels));
    slowdown_ = 1 + cm.params().comm_slowdown;
    size_t total = 0;
    for (const Program& p : plan.programs) {
      first_op_.push_back(static_cast<uint32_t>(total));
      total += p.ops.size();
    }
    PLANSIM_ASSERT(total < kMany, "too many ops for 31-bit op indices");
    first_op_.push_back(static_cast<uint32_t>(total));
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

  ExecutionResult run() {
    for (size_t r = 0; r < plan_.programs.size(); ++r)
      for (uint32_t g = first_op_[r]; g < first_op_[r + 1]; ++g)
        if (ops_[g].waiting == 0) ready(static_cast<uint32_t>(r), g);
    sim_.run();
    for (size_t r = 0; r < plan_.programs.size(); ++r) {
      const auto& p = plan_.programs[r];
      for (size_t i = 0; i < p.ops.size(); ++i) {
        const Time end = result_.timings[r][i].end;
        result_.iteration = std::max(result_.iteration, end);
        if (end == Time::infinite())
          throw InternalError(fmt::format("plan deadlocks: rank {} op {} ({} on {}) never ran", r, i,
                                          static_cast<int>(p.ops[i].kind), to_string(p.ops[i].stream)));
      }
    }
    result_.events = sim_.events_processed();
    return std::move(result_);
  }

 private:
  void init_rank(size_t r) {
    const Program& p = plan_.programs[r];
    const uint32_t base = first_op_[r];
    const auto n = static_cast<uint32_t>(p.ops.size());
    std::vector<uint32_t> last(kStreamCount, kNone);
    std::vector<uint32_t> count(n, 0);  // how many ops depend on each
    for (uint32_t i = 0; i < n; ++i) {
      const ProgramOp& op = p.ops[i];
      OpState& o = ops_[base + i];
      if (op.kind == OpKind::compute) o.work = kCompute | op.cost;
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

  // One rendezvous per (group, seq): the seq-th op every member issues on the group. Also each
  // group's member GPUs, once per TP-folding replica when its transfers are replicated.
  void init_collectives() {
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
      Rendezvous& rv = add_rendezvous(2);
      rv.src = GpuId(ends[k].src);
      rv.dst = GpuId(ends[k].dst);
      const auto id = static_cast<uint32_t>(rv_.size() - 1);
      for (; k < e; ++k) join(ends[k].program, ends[k].op, id);
    }
  }

  Rendezvous& add_rendezvous(uint32_t needed) {
    Rendezvous& rv = rv_.emplace_back();
    rv.needed = needed;
    rv.members_begin = static_cast<uint32_t>(members_size_);
    members_size_ += needed;
    return rv;
  }

  // Op i of program r is a member of rendezvous `id`; all members must agree on what they transfer.
  void join(size_t r, uint32_t i, uint32_t id) {
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

  // With TP folding, transfers of a group whose members all have programs (no TP sibling inside)
  // are replayed for every TP sibling.
  [[nodiscard]] static bool replicated(const Group& g) { return g.simulated_members == g.ranks.size(); }

  OpTiming& timing(uint32_t r, uint32_t g) { return result_.timings[r][g - first_op_[r]]; }

  // r: the rank (program index); g: the op's global index.
  void ready(uint32_t r, uint32_t g) {
    OpState& o = ops_[g];
    if (o.work & kCompute) {
      const uint32_t cost = o.work & ~kCompute;
      timing(r, g).start = sim_.now();
      RunningCompute& c = running_[r].emplace_back();
      c.op = g;
      c.remaining = static_cast<double>(result_.compute_cost[cost].picoseconds());
      c.since = sim_.now();
      c.slowed = active_comm_[r] > 0;
      schedule_compute(r, c);
      return;
    }
    if (o.work & kSolo) {
      launch_solo(solos_[o.work & ~kSolo], r, g);
      return;
    }
    Rendezvous& rv = rv_[o.work];
    members_[rv.members_begin + rv.arrived++] = {r, g};
    if (rv.arrived == rv.needed) launch(o.work);
  }

  // The request of a collective on `group` (its j-th TP-folding replica: ranks shifted by j·fold_stride).
  CommRequest collective_request(uint32_t group, CommOp comm, double bytes, int j) const {
    CommRequest req;
    req.op = comm;
    req.bytes = Bytes(bytes);
    req.dim = plan_.groups[group].dim;
    const size_t n = plan_.groups[group].ranks.size();
    req.ranks = std::span<const GpuId>(group_gpus_[group]).subspan(static_cast<size_t>(j) * n, n);
    req.group = group;
    req.replica = static_cast<uint32_t>(j);
    return req;
  }

  void schedule_compute(uint32_t r, RunningCompute& c) {
    if (c.done.valid()) sim_.cancel(c.done);
    const double left = c.slowed ? c.remaining * slowdown_ : c.remaining;
    c.done = sim_.after(Time::ps(static_cast<int64_t>(left + 0.5)), [this, r, g = c.op] {
      auto& running = running_[r];
      auto it = std::find_if(running.begin(), running.end(), [&](const RunningCompute& x) { return x.op == g; });
      *it = running.back();
      running.pop_back();
      complete(r, g);
    });
  }

  // Rank r's transfers in flight went from none to some or back: retime its running compute.
  void comm_state_changed(uint32_t r) {
    const bool slowed = active_comm_[r] > 0;
    for (RunningCompute& c : running_[r]) {
      if (c.slowed == slowed) continue;
      const double elapsed = static_cast<double>((sim_.now() - c.since).picoseconds());
      c.remaining = std::max(0.0, c.remaining - (c.slowed ? elapsed / slowdown_ : elapsed));
      c.since = sim_.now();
      c.slowed = slowed;
      schedule_compute(r, c);
    }
  }

  void comm_begin(uint32_t r) {
    if (active_comm_[r]++ == 0 && !running_[r].empty()) comm_state_changed(r);
  }
  void comm_end(uint32_t r) {
    if (--active_comm_[r] == 0 && !running_[r].empty()) comm_state_changed(r);
  }

  void launch_solo(const Solo& solo, uint32_t r, uint32_t g) {
    timing(r, g).start = sim_.now();
    comm_begin(r);
    ++result_.comm_calls;
    CommRequest req;
    req.op = solo.comm;
    req.ranks = std::span<const GpuId>(solo.ranks, solo.size);
    req.bytes = Bytes(solo.bytes);
    req.dim = solo.dim;
    req.group = solo.group;
    comm_.start(req, [this, r, g] {
      comm_end(r);
      complete(r, g);
    });
  }

  // Starts a transfer once all its members have issued it. With TP folding, transfers whose members
  // all have programs (no TP sibling inside) are replayed for every TP sibling (ranks shifted by
  // j·fold_stride) and the members complete when the last copy lands (the next TP collective would
  // synchronise the siblings there anyway).
  void launch(uint32_t id) {
    Rendezvous& rv = rv_[id];
    for (uint32_t k = 0; k < rv.needed; ++k) {
      auto [r, g] = members_[rv.members_begin + k];
      timing(r, g).start = sim_.now();
      comm_begin(r);
    }
    const bool collective = rv.group != kNoGroup;
    const int replicas = !collective || replicated(plan_.groups[rv.group]) ? plan_.fold : 1;
    const int copies = replay_ ? replicas : 1;
    rv.copies_left = copies;
    rv.copies = copies;
    for (int j = 0; j < copies; ++j) {
      ++result_.comm_calls;
      if (collective) {
        CommRequest req = collective_request(rv.group, rv.comm, rv.bytes, j);
        if (!replay_) {
          req.copies = static_cast<uint32_t>(replicas);
          req.copy_stride = static_cast<uint32_t>(plan_.fold_stride);
        }
        comm_.start(req, [this, id] { transfer_done(id); });
      } else {
        const auto shift = static_cast<uint32_t>(j * plan_.fold_stride);
        const std::array<GpuId, 2> pair{GpuId(rv.src.value + shift), GpuId(rv.dst.value + shift)};
        CommRequest req;
        req.op = CommOp::send_recv;
        req.bytes = Bytes(rv.bytes);
        req.dim = Dim::pp;
        req.ranks = pair;
        req.replica = static_cast<uint32_t>(j);
        if (!replay_) {
          req.copies = static_cast<uint32_t>(replicas);
          req.copy_stride = static_cast<uint32_t>(plan_.fold_stride);
        }
        comm_.start(req, [this, id] { transfer_done(id); });
      }
    }
  }

  void transfer_done(uint32_t id) {
    Rendezvous& rv = rv_[id];
    if (rv.copies > 1) {
      // Siblings stay in lockstep only if every replica lands when the first does.
      if (rv.copies_left == rv.copies) rv.first_landed = sim_.now();
      if (sim_.now() != rv.first_landed)
        throw FoldDivergence(fmt::format("TP folding is not exact here: two TP siblings' copies of a {} transfer landed "
                                         "{:.3f} us apart at t = {:.6f} s",
                                         rv.group == kNoGroup ? "pp" : to_string(plan_.groups[rv.group].dim),
                                         (sim_.now() - rv.first_landed).micros(), sim_.now().seconds()));
    }
    if (--rv.copies_left > 0) return;
    for (uint32_t k = 0; k < rv.needed; ++k) {
      auto [r, g] = members_[rv.members_begin + k];
      comm_end(r);
      complete(r, g);
    }
  }

  void complete(uint32_t r, uint32_t g) {
    const OpState& o = ops_[g];
    timing(r, g).end = sim_.now();
    if (const uint32_t d = o.dependent; d != kNone) {
      if (!(d & kMany)) {
        if (--ops_[d].waiting == 0) ready(r, d);
      } else {
        const uint32_t* list = &more_[d & ~kMany];
        for (uint32_t k = 1; k <= list[0]; ++k)
          if (--ops_[list[k]].waiting == 0) ready(r, list[k]);
      }
    }
    const uint32_t n = o.next_on_stream;
    if (n != kNone && --ops_[n].waiting == 0) ready(r, n);
  }

  const CompiledPlan& plan_;
  CommService& comm_;
  Simulation& sim_;
  bool replay_ = true;              // issue every replica's copy (else replica 0, see CommRequest::copies)
  double slowdown_ = 1;             // compute time factor while a transfer of the rank is in flight
  std::vector<std::vector<RunningCompute>> running_;  // per rank: its compute ops in progress
  std::vector<uint32_t> first_op_;  // per rank: its first op's global index; then the total
  std::vector<OpState> ops_;        // every rank's ops, rank after rank
  std::vector<uint32_t> more_;      // dependents of ops with several, see OpState::dependent
  std::vector<int> active_comm_;    // per rank: its transfers in flight
  std::vector<Rendezvous> rv_;
  std::vector<Solo> solos_;
  std::vector<std::pair<uint32_t, uint32_t>> members_;  // (rank, global op) per rendezvous, see Rendezvous
  size_t members_size_ = 0;
  std::vector<uint32_t> group_base_;  // rendezvous of (group, seq) = group_base_[group] + seq; kNone: solo group
  std::vector<std::vector<GpuId>> group_gpus_;  // per group: member GPUs, then each replica's
  ExecutionResult result_;
};

}  // namespace

ExecutionResult execute(const CompiledPlan& plan, const ComputeModel& compute, CommService& comm, Simulation& sim,
                        bool replay) {
  return Engine(plan, compute, comm, sim, replay).run();
}

}  // namespace plansim
