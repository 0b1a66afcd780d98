#include "sim/calib/validate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

namespace plansim::calib {
namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

const std::vector<std::string>& op_classes() {
  static const std::vector<std::string> classes = {"gemm", "attention", "elementwise", "collective", "p2p"};
  return classes;
}

Validation validate(const ReportTimings& sim, const ReportTimings& measured, double tolerance) {
  Validation v;
  v.tolerance = tolerance;
  if (!(measured.iteration_time_s > 0))
    throw ConfigError(measured.iteration_pos, "the measured iteration_time_s must be positive");
  v.end_to_end_rel = (sim.iteration_time_s - measured.iteration_time_s) / measured.iteration_time_s;

  // The k-th occurrence of (name, rank r) in the measurement matches the k-th occurrence of (name,
  // executed_as(r)) in the simulation; without folding executed_as is the identity.
  using Key = std::tuple<std::string, int, int>;
  std::map<Key, const OpTiming*> sim_ops;
  std::map<std::pair<std::string, int>, int> seen;
  for (const OpTiming& op : sim.ops) sim_ops[{op.name, op.rank, seen[{op.name, op.rank}]++}] = &op;
  seen.clear();
  std::set<const OpTiming*> sim_used;
  std::map<std::string, std::vector<double>> errors;
  std::size_t matched = 0;
  for (const OpTiming& m : measured.ops) {
    const auto folded = sim.executed_as.find(m.rank);
    const int sim_rank = folded == sim.executed_as.end() ? m.rank : folded->second;
    const auto it = sim_ops.find({m.name, sim_rank, seen[{m.name, m.rank}]++});
    if (it == sim_ops.end()) continue;
    const OpTiming& op = *it->second;
    if (m.op_class != op.op_class)
      throw ConfigError(m.pos, fmt::format("op '{}' on rank {} is class '{}' here but '{}' in {}", m.name, m.rank,
                                           m.op_class, op.op_class, sim.source));
    if (!(m.duration_s > 0))
      throw ConfigError(m.pos, fmt::format("the measured duration of op '{}' must be positive", m.name));
    ++matched;
    sim_used.insert(&op);
    errors[op.op_class].push_back(std::abs(op.duration_s - m.duration_s) / m.duration_s);
    ClassError& c = v.classes[op.op_class];
    c.sim_total_s += op.duration_s;
    c.measured_total_s += m.duration_s;
  }
  v.unmatched_sim = static_cast<int>(sim.ops.size() - sim_used.size());
  v.unmatched_measured = static_cast<int>(measured.ops.size() - matched);
  v.within_tolerance = std::abs(v.end_to_end_rel) <= tolerance;
  for (auto& [name, c] : v.classes) {
    const std::vector<double>& e = errors[name];
    c.ops = static_cast<int>(e.size());
    c.median_abs_rel = median(e);
    c.max_abs_rel = *std::max_element(e.begin(), e.end());
    if (c.median_abs_rel > tolerance) v.within_tolerance = false;
  }
  return v;
}

std::string format_validation(const Validation& v) {
  std::string out = fmt::format("{:<12} {:>5}  {:>14}  {:>11}  {:>12}  {:>15}\n", "class", "ops", "median |err| %",
                                "max |err| %", "sim total ms", "measured tot ms");
  for (const auto& [name, c] : v.classes)
    out += fmt::format("{:<12} {:>5}  {:>14.2f}  {:>11.2f}  {:>12.4f}  {:>15.4f}\n", name, c.ops,
                       c.median_abs_rel * 100, c.max_abs_rel * 100, c.sim_total_s * 1e3, c.measured_total_s * 1e3);
  out += fmt::format("{:<12} {:>5}  {:>+14.2f}  {:>11}  (signed: sim - measured)\n", "end-to-end", 1, v.end_to_end_rel * 100, "");
  if (v.unmatched_sim > 0 || v.unmatched_measured > 0)
    out += fmt::format("unmatched ops: {} only in the simulation, {} only in the measurement\n", v.unmatched_sim,
                       v.unmatched_measured);
  out += fmt::format("tolerance {:.2f} %: {}\n", v.tolerance * 100,
                     v.within_tolerance ? "within" : "EXCEEDED (end-to-end or a class median)");
  return out;
}

}  // namespace plansim::calib
