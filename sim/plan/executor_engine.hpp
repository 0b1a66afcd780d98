#pragma once
// plan-internal: the engine behind execute() (executor.hpp). It runs every simulated rank's program on
// the discrete-event simulation: compute ops on the rank's compute stream, transfers through the
// communication service once all their members have issued them (a rendezvous). executor_setup.cpp
// builds its tables before the run (op records, rendezvous per collective and per send/recv pair);
// executor.cpp is the run itself.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "sim/plan/executor.hpp"

namespace plansim::exec {

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
  Engine(const CompiledPlan& plan, const ComputeModel& cm, CommService& comm, Simulation& sim, bool replay);

  ExecutionResult run();

 private:
  void init_rank(size_t r);

  // One rendezvous per (group, seq): the seq-th op every member issues on the group. Also each
  // group's member GPUs, once per TP-folding replica when its transfers are replicated.
  void init_collectives();

  // A send and a recv meet when they name the same (sender, receiver, tag): sort all of them by
  // that key and give each run of equal keys one rendezvous of two members.
  void init_p2p();

  Rendezvous& add_rendezvous(uint32_t needed);

  // Op i of program r is a member of rendezvous `id`; all members must agree on what they transfer.
  void join(size_t r, uint32_t i, uint32_t id);

  // With TP folding, transfers of a group whose members all have programs (no TP sibling inside)
  // are replayed for every TP sibling.
  [[nodiscard]] static bool replicated(const Group& g) { return g.simulated_members == g.ranks.size(); }

  OpTiming& timing(uint32_t r, uint32_t g) { return result_.timings[r][g - first_op_[r]]; }

  // r: the rank (program index); g: the op's global index.
  void ready(uint32_t r, uint32_t g);

  // The request of a collective on `group` (its j-th TP-folding replica: ranks shifted by j·fold_stride).
  CommRequest collective_request(uint32_t group, CommOp comm, double bytes, int j) const;
  void schedule_compute(uint32_t r, RunningCompute& c);

  // Rank r's transfers in flight went from none to some or back: retime its running compute.
  void comm_state_changed(uint32_t r);
  void comm_begin(uint32_t r);
  void comm_end(uint32_t r);
  void launch_solo(const Solo& solo, uint32_t r, uint32_t g);

  // Starts a transfer once all its members have issued it. With TP folding, transfers whose members
  // all have programs (no TP sibling inside) are replayed for every TP sibling (ranks shifted by
  // j·fold_stride) and the members complete when the last copy lands (the next TP collective would
  // synchronise the siblings there anyway).
  void launch(uint32_t id);
  void transfer_done(uint32_t id);
  void complete(uint32_t r, uint32_t g);

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

}  // namespace plansim::exec
