#include "sim/calib/collective_residuals.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace plansim::calib {

std::vector<SizeResidual> collective_residuals(const Measurements& m, const CollectiveFit& fit) {
  std::vector<const CollectiveSample*> group;
  for (const auto& s : m.collectives)
    if (s.op == fit.op && s.algorithm == fit.algorithm && s.nranks == fit.nranks) group.push_back(&s);
  std::stable_sort(group.begin(), group.end(), [](auto* a, auto* b) { return a->size_bytes < b->size_bytes; });
  std::vector<FitPoint> points;
  for (const auto* s : group) points.push_back({s->size_bytes * s->busbw_factor, s->time_s});
  std::vector<SizeResidual> out;
  for (size_t i = 0; i < group.size(); ++i) {
    SizeResidual r;
    r.size_bytes = group[i]->size_bytes;
    r.measured_s = group[i]->time_s;
    r.fitted_s = fit.fit.a + fit.fit.b * points[i].x;
    r.residual = (r.fitted_s - r.measured_s) / r.measured_s;
    r.pos = group[i]->pos;
    std::vector<FitPoint> rest;
    for (size_t j = 0; j < points.size(); ++j)
      if (j != i) rest.push_back(points[j]);
    try {
      const LinearFit loo = fit_latency_bandwidth(rest);
      r.leave_one_out = (loo.a + loo.b * points[i].x - r.measured_s) / r.measured_s;
      r.has_loo = true;
    } catch (const std::invalid_argument&) {
    }
    out.push_back(r);
  }
  return out;
}

std::string format_collective_residuals(const Measurements& m, const Profile& p) {
  std::string t;
  for (const auto& c : p.collectives) {
    const auto rows = collective_residuals(m, c);
    t += fmt::format("== {} over {} ranks, algorithm {}: t(S) = {:.4g} us + S * busbw_factor / {:.4g} GB/s\n", c.op,
                     c.nranks, c.algorithm, c.latency_s * 1e6, c.bus_bandwidth_Bps / 1e9);
    t += fmt::format("  {:>12} {:>12} {:>12} {:>10} {:>14}  {}\n", "size (B)", "measured us", "fitted us", "residual",
                     "leave-one-out", "row");
    double sum = 0, sum_loo = 0, worst = 0;
    int n_loo = 0;
    for (const auto& r : rows) {
      t += fmt::format("  {:>12.0f} {:>12.2f} {:>12.2f} {:>+9.1f}% {:>13}  {}\n", r.size_bytes, r.measured_s * 1e6,
                       r.fitted_s * 1e6, r.residual * 100,
                       r.has_loo ? fmt::format("{:+.1f}%", r.leave_one_out * 100) : std::string("-"), r.pos.to_string());
      sum += std::abs(r.residual);
      worst = std::max(worst, std::abs(r.residual));
      if (r.has_loo) sum_loo += std::abs(r.leave_one_out), ++n_loo;
    }
    if (!rows.empty())
      t += fmt::format("  mean |residual| {:.1f} % (max {:.1f} %), mean |leave-one-out| {}\n",
                       sum / static_cast<double>(rows.size()) * 100, worst * 100,
                       n_loo ? fmt::format("{:.1f} %", sum_loo / n_loo * 100) : std::string("-"));
  }
  return t;
}

}  // namespace plansim::calib
