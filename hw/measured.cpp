#include "hw/measured.hpp"

#include <algorithm>
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

}  // namespace plansim::hw
