#include "sim/plan/executor.hpp"

#include <fmt/format.h>

#include <limits>
#include <memory>
#include <unordered_map>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

struct RankState {
  std::vector<uint32_t> waiting;    // unmet deps + stream predecessor
  std::vector<uint32_t> next_on_stream;
  std::vector<uint32_t> dep_offset;  // dependents CSR
  std::vector<uint32_t> dependents;
  int active_comm = 0;
  size_t done = 0;
};

struct Pending {
  std::vector<std::pair<uint32_t, uint32_t>> members;  // (rank, op)
};

class Engine {
 public:
  Engine(const CompiledPlan& plan, const ComputeModel& cm, CommService& comm, Simulation& sim)
      : plan_(plan), cm_(cm), comm_(comm), sim_(sim) {
    for (const auto& c : plan.costs) result_.compute_cost.push_back(cm.ops_time(c.kernels));
    result_.timings.resize(plan.programs.size());
    ranks_.resize(plan.programs.size());
    for (size_t r = 0; r < plan.programs.size(); ++r) init_rank(r);
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

  void ready(uint32_t r, uint32_t i) {
    const ProgramOp& op = plan_.programs[r].ops[i];
    switch (op.kind) {
      case OpKind::compute: {
        Time t = result_.compute_cost[op.cost];
        if (ranks_[r].active_comm > 0)
          t = Time::from_seconds(t.seconds() * (1 + cm_.params().comm_slowdown));
        result_.timings[r][i].start = sim_.now();
        sim_.after(t, [this, r, i] { complete(r, i); });
        break;
      }
      case OpKind::collective: {
        const uint64_t key = (static_cast<uint64_t>(op.group) << 32) | op.seq;
        Pending& pend = collectives_[key];
        pend.members.emplace_back(r, i);
        const Group& g = plan_.groups[op.group];
        if (pend.members.size() == g.simulated_members) {
          CommRequest req{op.comm, {}, Bytes(op.bytes), g.dim};
          for (uint32_t m : g.ranks) req.ranks.push_back(GpuId(m));
          launch(req, std::move(pend.members), g.simulated_members == g.ranks.size());
          collectives_.erase(key);
        }
        break;
      }
      case OpKind::send:
      case OpKind::recv: {
        const uint32_t self = plan_.programs[r].rank;
        const uint32_t src = op.kind == OpKind::send ? self : op.peer, dst = op.kind == OpKind::send ? op.peer : self;
        const uint64_t key = (static_cast<uint64_t>(src) << 40) ^ (static_cast<uint64_t>(dst) << 20) ^ op.tag;
        auto& pend = p2p_[P2PKey{src, dst, op.tag, key}];
        pend.members.emplace_back(r, i);
        if (pend.members.size() == 2) {
          launch(CommRequest{CommOp::send_recv, {GpuId(src), GpuId(dst)}, Bytes(op.bytes), Dim::pp},
                 std::move(pend.members), true);
          p2p_.erase(P2PKey{src, dst, op.tag, key});
        }
        break;
      }
    }
  }

  // Starts a transfer; with TP folding, transfers whose members all have programs (no TP sibling
  // inside) are replayed for every TP sibling (ranks shifted by j·fold_stride) and the members complete when the last copy lands (the next TP
  // collective would synchronise the siblings there anyway).
  void launch(const CommRequest& req, std::vector<std::pair<uint32_t, uint32_t>> members, bool replicate) {
    for (auto [r, i] : members) {
      result_.timings[r][i].start = sim_.now();
      ++ranks_[r].active_comm;
    }
    const int copies = replicate ? plan_.fold : 1;
    auto left = std::make_shared<int>(copies);
    auto m = std::make_shared<std::vector<std::pair<uint32_t, uint32_t>>>(std::move(members));
    for (int j = 0; j < copies; ++j) {
      CommRequest rq = req;
      if (j > 0)
        for (GpuId& g : rq.ranks) g = GpuId(g.value + static_cast<uint32_t>(j * plan_.fold_stride));
      ++result_.comm_calls;
      comm_.start(rq, [this, left, m] {
        if (--*left > 0) return;
        for (auto [r, i] : *m) {
          --ranks_[r].active_comm;
          complete(r, i);
        }
      });
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

  struct P2PKey {
    uint32_t src, dst, tag;
    uint64_t hash;
    bool operator==(const P2PKey& o) const { return src == o.src && dst == o.dst && tag == o.tag; }
  };
  struct P2PHash {
    size_t operator()(const P2PKey& k) const { return std::hash<uint64_t>{}(k.hash); }
  };

  const CompiledPlan& plan_;
  const ComputeModel& cm_;
  CommService& comm_;
  Simulation& sim_;
  std::vector<RankState> ranks_;
  std::unordered_map<uint64_t, Pending> collectives_;
  std::unordered_map<P2PKey, Pending, P2PHash> p2p_;
  ExecutionResult result_;
};

}  // namespace

ExecutionResult execute(const CompiledPlan& plan, const ComputeModel& compute, CommService& comm, Simulation& sim) {
  return Engine(plan, compute, comm, sim).run();
}

}  // namespace plansim
