#include "sim/calib/run_fit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace plansim::calib {
namespace {

using Vec = std::vector<double>;

struct Problem {
  const Vec& measured;
  const std::vector<FitParameter>& params;
  const RunEvaluator& evaluate;
  std::vector<size_t> rows;  // runs in this fit
  int evaluations = 0;

  Vec values(const Vec& u) const {
    Vec v(u.size());
    for (size_t j = 0; j < u.size(); ++j) v[j] = std::exp(u[j]);
    return v;
  }
  Vec residuals(const Vec& u) {
    const Vec pred = evaluate(values(u), rows);
    evaluations += static_cast<int>(rows.size());
    Vec r(rows.size());
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!(pred[i] > 0) || !std::isfinite(pred[i])) throw FitError("a run's predicted time is not a positive number");
      r[i] = std::log(pred[i] / measured[rows[i]]);
    }
    return r;
  }
};

Vec huber_weights(const Vec& r) {
  Vec a(r.size());
  for (size_t i = 0; i < r.size(); ++i) a[i] = std::abs(r[i]);
  Vec sorted = a;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() / 2), sorted.end());
  const double scale = std::max(1.4826 * sorted[sorted.size() / 2], 0.005);
  Vec w(r.size());
  for (size_t i = 0; i < r.size(); ++i) w[i] = a[i] <= 1.345 * scale ? 1.0 : 1.345 * scale / a[i];
  return w;
}

double cost(const Vec& r, const Vec& w) {
  double c = 0;
  for (size_t i = 0; i < r.size(); ++i) c += w[i] * r[i] * r[i];
  return c;
}

// Solves (A + λ·diag(A)) x = b for a small symmetric positive semi-definite A (Gaussian elimination with
// partial pivoting); returns false when singular.
bool solve(std::vector<Vec> a, Vec b, double lambda, Vec& x) {
  const size_t n = b.size();
  for (size_t j = 0; j < n; ++j) a[j][j] += lambda * std::max(a[j][j], 1e-12);
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r][c]) > std::abs(a[p][c])) p = r;
    if (std::abs(a[p][c]) < 1e-300) return false;
    std::swap(a[p], a[c]);
    std::swap(b[p], b[c]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  x.assign(n, 0);
  for (size_t c = n; c-- > 0;) {
    double s = b[c];
    for (size_t k = c + 1; k < n; ++k) s -= a[c][k] * x[k];
    x[c] = s / a[c][c];
  }
  return true;
}

struct Solution {
  Vec u;
  Vec r;
  std::vector<Vec> jacobian;        // [row][param], at u
  std::vector<Vec> start_jacobian;  // the same at the starting point (the first iteration's)
  int iterations = 0;
};

std::vector<Vec> jacobian(Problem& p, const Vec& u, const Vec& r0) {
  const double h = 1e-3;
  std::vector<Vec> j(r0.size(), Vec(u.size()));
  for (size_t k = 0; k < u.size(); ++k) {
    Vec v = u;
    const double hi = std::log(p.params[k].hi);
    const double step = v[k] + h > hi ? -h : h;  // stay inside the bounds
    v[k] += step;
    const Vec r = p.residuals(v);
    for (size_t i = 0; i < r.size(); ++i) j[i][k] = (r[i] - r0[i]) / step;
  }
  return j;
}

Solution levenberg_marquardt(Problem& p, Vec u, int max_iterations) {
  Vec lo(u.size()), hi(u.size());
  for (size_t k = 0; k < u.size(); ++k) {
    lo[k] = std::log(p.params[k].lo);
    hi[k] = std::log(p.params[k].hi);
  }
  Solution s;
  s.r = p.residuals(u);
  double lambda = 1e-3;
  for (int it = 0; it < max_iterations; ++it) {
    s.iterations = it + 1;
    const Vec w = huber_weights(s.r);
    const auto j = jacobian(p, u, s.r);
    if (it == 0) s.start_jacobian = j;
    const size_t n = u.size();
    std::vector<Vec> a(n, Vec(n, 0));
    Vec g(n, 0);
    for (size_t i = 0; i < s.r.size(); ++i)
      for (size_t k = 0; k < n; ++k) {
        g[k] -= w[i] * j[i][k] * s.r[i];
        for (size_t l = 0; l < n; ++l) a[k][l] += w[i] * j[i][k] * j[i][l];
      }
    const double c0 = cost(s.r, w);
    bool improved = false;
    double moved = 0;
    for (int tries = 0; tries < 12 && !improved; ++tries) {
      Vec dx;
      if (!solve(a, g, lambda, dx)) {
        lambda *= 10;
        continue;
      }
      Vec v = u;
      for (size_t k = 0; k < n; ++k) v[k] = std::clamp(u[k] + dx[k], lo[k], hi[k]);
      const Vec r = p.residuals(v);
      if (cost(r, w) < c0) {
        moved = 0;
        for (size_t k = 0; k < n; ++k) moved = std::max(moved, std::abs(v[k] - u[k]));
        u = v;
        s.r = r;
        lambda = std::max(lambda / 10, 1e-9);
        improved = true;
      } else {
        lambda *= 10;
      }
    }
    if (!improved || moved < 1e-5) break;
  }
  s.u = u;
  s.jacobian = jacobian(p, u, s.r);
  return s;
}

// Largest |d ln t / d ln θ_k| over the runs.
double elasticity(const std::vector<Vec>& jacobian, size_t k) {
  double worst = 0;
  for (const auto& row : jacobian) worst = std::max(worst, std::abs(row[k]));
  return worst;
}

// A parameter pinned to a bound is set by the bound, not by the runs' sensitivity there (an overhead the
// data push to its lower bound, near 0, moves no run at all there): it counts as identified when the runs
// depended on it where the fit started, and it is left out of the collinearity test.
void check_identifiable(const Solution& s, const std::vector<FitParameter>& params, const std::vector<bool>& at_bound) {
  const size_t n = params.size();
  Vec norm(n, 0);
  for (size_t k = 0; k < n; ++k) {
    const double worst = at_bound[k] ? std::max(elasticity(s.jacobian, k), elasticity(s.start_jacobian, k))
                                     : elasticity(s.jacobian, k);
    // d ln t / d ln θ below 0.01: a 1 % change of θ moves no run by 0.01 %.
    if (worst < 0.01)
      throw FitError(fmt::format("these runs cannot identify '{}': changing it by 1 % moves no run's time by 0.01 %",
                                 params[k].key));
    for (const auto& row : s.jacobian) norm[k] += row[k] * row[k];
    norm[k] = std::sqrt(norm[k]);
  }
  for (size_t k = 0; k < n; ++k)
    for (size_t l = k + 1; l < n; ++l) {
      if (at_bound[k] || at_bound[l]) continue;
      double dot = 0;
      for (const auto& row : s.jacobian) dot += row[k] * row[l];
      if (std::abs(dot) / (norm[k] * norm[l]) > 0.9999)
        throw FitError(fmt::format("these runs cannot tell '{}' and '{}' apart: they change every run's time in the "
                                   "same proportion (fit one, fix the other)",
                                   params[k].key, params[l].key));
    }
}

}  // namespace

RunFit fit_runs(const Vec& measured_s, const std::vector<FitParameter>& params, const RunEvaluator& evaluate,
                const RunFitOptions& options) {
  if (params.empty()) throw FitError("nothing to fit: name at least one parameter");
  if (measured_s.size() < params.size() + 1)
    throw FitError(fmt::format("{} parameter(s) need at least {} runs, got {}", params.size(), params.size() + 1,
                               measured_s.size()));
  Vec u0(params.size());
  for (size_t k = 0; k < params.size(); ++k) {
    const auto& p = params[k];
    if (!(p.lo > 0 && p.lo < p.hi && p.start >= p.lo && p.start <= p.hi))
      throw FitError(fmt::format("'{}': bounds must satisfy 0 < lo <= start <= hi", p.key));
    u0[k] = std::log(p.start);
  }
  Problem all{measured_s, params, evaluate, {}};
  all.rows.resize(measured_s.size());
  std::iota(all.rows.begin(), all.rows.end(), 0);
  const Solution full = levenberg_marquardt(all, u0, options.max_iterations);
  RunFit out;
  for (size_t k = 0; k < params.size(); ++k)
    out.at_bound.push_back(std::abs(full.u[k] - std::log(params[k].lo)) < 1e-9 ||
                           std::abs(full.u[k] - std::log(params[k].hi)) < 1e-9);
  check_identifiable(full, params, out.at_bound);
  out.values = all.values(full.u);
  out.iterations = full.iterations;
  out.predicted_s.resize(measured_s.size());
  for (size_t i = 0; i < measured_s.size(); ++i) out.predicted_s[i] = measured_s[i] * std::exp(full.r[i]);
  out.evaluations = all.evaluations;
  if (options.leave_one_out) {
    out.loo_predicted_s.resize(measured_s.size());
    const Vec w = huber_weights(full.r);
    const size_t n = params.size();
    for (size_t held = 0; held < measured_s.size(); ++held) {
      Vec u = full.u;
      if (options.loo_exact) {
        Problem fold{measured_s, params, evaluate, {}};
        for (size_t i = 0; i < measured_s.size(); ++i)
          if (i != held) fold.rows.push_back(i);
        u = levenberg_marquardt(fold, full.u, options.loo_max_iterations).u;
        out.evaluations += fold.evaluations;
      } else {
        // One Gauss–Newton step from the full fit on the other runs, with the Jacobian at the full fit:
        // their gradient there is −(the held-out run's term), since the full fit's gradient is zero.
        // Parameters pinned to a bound stay there (their Jacobian column there may be all but zero).
        std::vector<size_t> free;
        for (size_t k = 0; k < n; ++k)
          if (!out.at_bound[k]) free.push_back(k);
        const size_t m = free.size();
        std::vector<Vec> a(m, Vec(m, 0));
        Vec g(m, 0);
        for (size_t i = 0; i < full.r.size(); ++i) {
          if (i == held) continue;
          for (size_t k = 0; k < m; ++k) {
            g[k] -= w[i] * full.jacobian[i][free[k]] * full.r[i];
            for (size_t l = 0; l < m; ++l) a[k][l] += w[i] * full.jacobian[i][free[k]] * full.jacobian[i][free[l]];
          }
        }
        Vec dx;
        if (m > 0 && solve(a, g, 0, dx))
          for (size_t k = 0; k < m; ++k)
            u[free[k]] = std::clamp(u[free[k]] + dx[k], std::log(params[free[k]].lo), std::log(params[free[k]].hi));
      }
      out.loo_predicted_s[held] = evaluate(all.values(u), {held}).at(0);  // the held-out run, simulated
      out.evaluations += 1;
    }
  }
  return out;
}

}  // namespace plansim::calib
