#include "sim/report/schedule_slots.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace plansim {

std::vector<ScheduleSlot> schedule_slots(const CompiledPlan& plan, const ExecutionResult& exec, size_t index) {
  const Program& p = plan.programs[index];
  const auto& t = exec.timings[index];
  std::map<std::tuple<int, int, int>, size_t> slot_of;  // (phase, micro-batch, chunk) -> slot
  std::vector<ScheduleSlot> slots;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const ProgramOp& op = p.ops[i];
    if (op.kind != OpKind::compute || op.micro_batch < 0) continue;
    const auto key = std::make_tuple(static_cast<int>(op.phase), op.micro_batch, static_cast<int>(op.chunk));
    auto [it, fresh] = slot_of.try_emplace(key, slots.size());
    const double start = t[i].start.seconds(), end = t[i].end.seconds();
    if (fresh) {
      slots.push_back({p.stage, op.micro_batch, op.chunk, op.phase, start, end});
      continue;
    }
    ScheduleSlot& s = slots[it->second];
    s.start_s = std::min(s.start_s, start);
    s.end_s = std::max(s.end_s, end);
  }
  std::stable_sort(slots.begin(), slots.end(), [](const ScheduleSlot& a, const ScheduleSlot& b) { return a.start_s < b.start_s; });
  return slots;
}

double StageTimeBreakdown::total_s() const {
  double sum = compute_s + offload_s + bubble_s + idle_s;
  for (double e : exposed_s) sum += e;
  return sum;
}

StageTimeBreakdown stage_time_breakdown(const CompiledPlan& plan, const ExecutionResult& exec, size_t index,
                                        Time iteration, Time flush_end) {
  const Program& p = plan.programs[index];
  const auto& t = exec.timings[index];
  // A sweep over the starts and ends of the rank's ops: kind 0..4 a transfer of that dimension,
  // 5 compute, 6 an activation offload copy; +1 at a start, −1 at an end.
  constexpr int kCompute = 5, kHostCopy = 6;
  struct Event {
    int64_t at;
    int kind;
    int delta;
  };
  std::vector<Event> events;
  events.reserve(2 * p.ops.size());
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const ProgramOp& op = p.ops[i];
    if (t[i].end <= t[i].start) continue;
    int kind = kCompute;
    if (op.kind == OpKind::host_copy) kind = kHostCopy;
    else if (op.kind == OpKind::collective) kind = static_cast<int>(plan.groups[op.group].dim);
    else if (op.kind != OpKind::compute) kind = static_cast<int>(Dim::pp);
    events.push_back({t[i].start.picoseconds(), kind, +1});
    events.push_back({t[i].end.picoseconds(), kind, -1});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.at < b.at; });
  StageTimeBreakdown out;
  std::array<int, 7> active{};
  const int64_t end = iteration.picoseconds(), flush = std::min(flush_end, iteration).picoseconds();
  // Charges [from, to) to whatever is active.
  auto charge = [&](int64_t from, int64_t to) {
    if (to <= from) return;
    const double len = static_cast<double>(to - from) * 1e-12;
    if (active[kCompute] > 0) {
      out.compute_s += len;
      return;
    }
    int dims = 0;
    for (int d = 0; d < 5; ++d) dims += active[static_cast<size_t>(d)] > 0 ? 1 : 0;
    if (dims > 0) {
      for (size_t d = 0; d < 5; ++d)
        if (active[d] > 0) out.exposed_s[d] += len / dims;
      return;
    }
    if (active[kHostCopy] > 0) {  // compute waits for a copy (offload_exposed_s counts it too)
      out.offload_s += len;
      return;
    }
    (to <= flush ? out.bubble_s : out.idle_s) += len;
  };
  int64_t at = 0;
  auto advance = [&](int64_t to) {  // charges [at, to), split at the flush's end
    to = std::min(to, end);
    if (at < flush && to > flush) {
      charge(at, flush);
      at = flush;
    }
    charge(at, to);
    at = std::max(at, to);
  };
  for (const Event& e : events) {
    advance(e.at);
    active[static_cast<size_t>(e.kind)] += e.delta;
  }
  advance(end);
  return out;
}

}  // namespace plansim
