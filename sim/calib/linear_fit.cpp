#include "sim/calib/linear_fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace plansim::calib {
namespace {

constexpr double kHuberC = 1.345;
constexpr int kIterations = 20;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Line {
  double a = 0, b = 0;
};

// Weighted least squares of t = a + b·x with weights u (x already scaled to O(1)); a clamped at 0.
Line solve(std::span<const FitPoint> p, const std::vector<double>& u, double x_scale) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double x = p[i].x / x_scale;
    sw += u[i];
    sx += u[i] * x;
    sy += u[i] * p[i].t;
    sxx += u[i] * x * x;
    sxy += u[i] * x * p[i].t;
  }
  const double det = sw * sxx - sx * sx;
  Line l;
  if (det > 0) {
    l.b = (sw * sxy - sx * sy) / det;
    l.a = (sy - l.b * sx) / sw;
  }
  if (det <= 0 || l.a < 0) {  // through the origin
    l.a = 0;
    l.b = sxy / sxx;
  }
  l.b /= x_scale;
  return l;
}

std::vector<double> relative_residuals(std::span<const FitPoint> p, const Line& l) {
  std::vector<double> r(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) r[i] = (p[i].t - l.a - l.b * p[i].x) / p[i].t;
  return r;
}

}  // namespace

LinearFit fit_latency_bandwidth(std::span<const FitPoint> points) {
  double x_min = 0, x_max = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!(points[i].t > 0) || !std::isfinite(points[i].t)) throw std::invalid_argument("a measured time is not positive");
    if (!(points[i].x >= 0) || !std::isfinite(points[i].x)) throw std::invalid_argument("a size is negative");
    x_min = i == 0 ? points[i].x : std::min(x_min, points[i].x);
    x_max = i == 0 ? points[i].x : std::max(x_max, points[i].x);
  }
  if (points.size() < 2 || x_max <= x_min) throw std::invalid_argument("need at least two different sizes");

  std::vector<double> base(points.size()), u(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) base[i] = 1.0 / (points[i].t * points[i].t);
  u = base;
  Line line = solve(points, u, x_max);
  for (int it = 0; it < kIterations; ++it) {
    const std::vector<double> r = relative_residuals(points, line);
    std::vector<double> abs_r(r.size());
    std::transform(r.begin(), r.end(), abs_r.begin(), [](double v) { return std::abs(v); });
    const double scale = 1.4826 * median(abs_r);
    if (scale <= 1e-12) break;  // (near-)exact fit
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double z = std::abs(r[i]) / (kHuberC * scale);
      u[i] = base[i] * (z <= 1 ? 1.0 : 1.0 / z);
    }
    const Line next = solve(points, u, x_max);
    const bool converged = std::abs(next.a - line.a) <= 1e-9 * std::max(std::abs(line.a), 1e-15) &&
                           std::abs(next.b - line.b) <= 1e-9 * std::abs(line.b);
    line = next;
    if (converged) break;
  }
  if (!(line.b > 0)) throw std::invalid_argument("the times do not grow with the size (no positive bandwidth)");

  LinearFit fit;
  fit.a = line.a;
  fit.b = line.b;
  fit.points = static_cast<int>(points.size());
  std::vector<double> abs_r = relative_residuals(points, line);
  for (double& v : abs_r) v = std::abs(v);
  fit.median_abs_rel_residual = median(abs_r);
  fit.max_abs_rel_residual = *std::max_element(abs_r.begin(), abs_r.end());
  return fit;
}

}  // namespace plansim::calib
