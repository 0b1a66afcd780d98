#pragma once
// Robust fit of t = a + b·x to measured (x, t) pairs, the one fitting method of `plansim calibrate`.
//
// Method: weighted least squares on *relative* residuals r_i = (t_i − a − b·x_i) / t_i, i.e. weights 1/t_i².
// Every point counts by its relative error, so small sizes (where t ≈ a) pin the latency a and large sizes
// (where t ≈ b·x) pin the slope b; neither end drowns the other as it would in plain least squares, where
// the largest times would decide everything. Outliers are down-weighted by iteratively reweighted least
// squares with Huber weights (c = 1.345 robust standard deviations, scale = 1.4826·MAD of the residuals).
// Constraints: a ≥ 0 (refit with a = 0 when the unconstrained intercept is negative); b must come out > 0.
#include <span>

namespace plansim::calib {

struct FitPoint {
  double x = 0;  // e.g. bytes on the bus, or FLOPs
  double t = 0;  // seconds, > 0
};

struct LinearFit {
  double a = 0;  // intercept (s)
  double b = 0;  // slope (s per unit of x)
  int points = 0;
  double median_abs_rel_residual = 0;
  double max_abs_rel_residual = 0;
};

// Throws std::invalid_argument when there are fewer than two distinct x, a non-positive time, or when
// the times do not grow with x (no positive slope).
LinearFit fit_latency_bandwidth(std::span<const FitPoint> points);

}  // namespace plansim::calib
