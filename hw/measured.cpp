#include "hw/measured.hpp"

#include <algorithm>
#include <map>
#include <tuple>
#include <stdexcept>

namespace plansim::hw {

ExecutionResult measured_execution(const CompiledPlan& plan, const std::vector<std::vector<OpSpan>>& spans) {
  if (spans.size() != plan.programs.size()) throw std::invalid_argument("measured spans: one list per program expected");
  ExecutionResult r;
  r.iteration = Time::zero();
  for (size_t k = 0; k < spans.size(); ++k) {
    if (spans[k].size() != plan.programs[k].ops.size())
      throw std::invalid_argument("measured spans: one span per program op expected");
    std::vector<OpTiming> t;
    t.reserve(spans[k].size());
    for (const OpSpan& s : spans[k]) {
      if (!(s.end_s >= s.start_s) || s.start_s < 0) throw std::invalid_argument("measured spans: end before start");
      t.push_back({Time::from_seconds(s.start_s), Time::from_seconds(s.end_s)});
      r.iteration = std::max(r.iteration, t.back().end);
      if (plan.programs[k].ops[t.size() - 1].kind != OpKind::compute) ++r.comm_calls;
    }
    r.timings.push_back(std::move(t));
  }
  r.events = 0;
  return r;
}

std::vector<std::vector<OpSpan>> mean_spans(const std::vector<std::vector<std::vector<OpSpan>>>& by_iter) {
  if (by_iter.empty()) throw std::invalid_argument("no timed iteration");
  std::vector<std::vector<OpSpan>> out = by_iter.front();
  const double n = static_cast<double>(by_iter.size());
  for (auto& rank : out)
    for (auto& s : rank) s = {};
  for (const auto& it : by_iter)
    for (size_t r = 0; r < out.size(); ++r)
      for (size_t i = 0; i < out[r].size(); ++i) {
        out[r][i].start_s += it[r][i].start_s / n;
        out[r][i].end_s += it[r][i].end_s / n;
      }
  return out;
}

void align_communication_starts(const CompiledPlan& plan, std::vector<std::vector<OpSpan>>& spans) {
  if (spans.size() != plan.programs.size()) throw std::invalid_argument("measured spans: one list per program expected");
  using Key = std::tuple<int, uint32_t, uint32_t, uint32_t>;  // (0, group, seq, -) or (1, sender, receiver, tag)
  std::map<Key, std::vector<OpSpan*>> members;
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const Program& p = plan.programs[r];
    if (spans[r].size() != p.ops.size()) throw std::invalid_argument("measured spans: one span per program op expected");
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const ProgramOp& op = p.ops[i];
      if (op.kind == OpKind::collective) members[{0, op.group, op.seq, 0}].push_back(&spans[r][i]);
      if (op.kind == OpKind::send) members[{1, p.rank, op.peer, op.tag}].push_back(&spans[r][i]);
      if (op.kind == OpKind::recv) members[{1, op.peer, p.rank, op.tag}].push_back(&spans[r][i]);
    }
  }
  for (auto& [key, ops] : members) {
    double ready = 0;
    for (const OpSpan* s : ops) ready = std::max(ready, s->start_s);
    for (OpSpan* s : ops) s->start_s = std::min(ready, s->end_s);
  }
}

IterationStats iteration_stats(const std::vector<std::vector<std::vector<OpSpan>>>& by_iter) {
  if (by_iter.empty()) throw std::invalid_argument("no timed iteration");
  IterationStats st;
  for (const auto& it : by_iter) {
    double end = 0;
    for (const auto& rank : it)
      for (const OpSpan& s : rank) end = std::max(end, s.end_s);
    st.seconds.push_back(end);
  }
  std::vector<double> sorted = st.seconds;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  st.min = sorted.front();
  st.max = sorted.back();
  st.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  for (double v : sorted) st.mean += v / static_cast<double>(n);
  return st;
}

}  // namespace plansim::hw
