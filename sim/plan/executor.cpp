#include "sim/plan/executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "sim/core/assert.hpp"
#include "sim/plan/executor_engine.hpp"

namespace plansim {
namespace exec {

ExecutionResult Engine::run() {
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

void Engine::ready(uint32_t r, uint32_t g) {
  OpState& o = ops_[g];
  if (o.work & kCompute) {
    const uint32_t cost = o.work & ~kCompute;
    timing(r, g).start = sim_.now();
    if (plan_.programs[r].ops[g - first_op_[r]].kind == OpKind::host_copy) {
      // A copy engine's transfer: its own duration, not slowed by the rank's collectives (comm_slowdown
      // is SM contention) and not counted as running compute.
      sim_.after(result_.compute_cost[cost], [this, r, g] { complete(r, g); });
      return;
    }
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

CommRequest Engine::collective_request(uint32_t group, CommOp comm, double bytes, int j) const {
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

void Engine::schedule_compute(uint32_t r, RunningCompute& c) {
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

void Engine::comm_state_changed(uint32_t r) {
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

void Engine::comm_begin(uint32_t r) {
  if (active_comm_[r]++ == 0 && !running_[r].empty()) comm_state_changed(r);
}

void Engine::comm_end(uint32_t r) {
  if (--active_comm_[r] == 0 && !running_[r].empty()) comm_state_changed(r);
}

void Engine::launch_solo(const Solo& solo, uint32_t r, uint32_t g) {
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

void Engine::launch(uint32_t id) {
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

void Engine::transfer_done(uint32_t id) {
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

void Engine::complete(uint32_t r, uint32_t g) {
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

}  // namespace exec

ExecutionResult execute(const CompiledPlan& plan, const ComputeModel& compute, CommService& comm, Simulation& sim,
                        bool replay) {
  return exec::Engine(plan, compute, comm, sim, replay).run();
}

}  // namespace plansim
