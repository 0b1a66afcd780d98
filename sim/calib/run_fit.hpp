#pragma once
// Least-squares fit of model parameters to end-to-end measurements (`plansim calibrate --runs`).
//
// Residuals are relative: r_i = ln(predicted_i / measured_i), so a run counts by its relative error
// whatever its size. Parameters live in log space (they are rates and fractions: positive, and their
// effect multiplicative) and are clamped to their bounds. Levenberg–Marquardt steps with a forward-
// difference Jacobian (step 0.1 % of the parameter); Huber reweighting (c = 1.345 robust standard
// deviations, scale 1.4826·MAD floored at 0.5 %) keeps one bad row from pulling the fit. Deterministic.
//
// Identifiability is checked at the solution: a parameter whose 1 % change moves no run's time by 0.01 %
// cannot be fitted from these runs, and two whose effects are collinear (|cos| > 0.9999) cannot be told
// apart; both throw FitError naming them. A parameter the data push to one of its bounds is set by the
// bound (`at_bound`): it passes when the runs depended on it where the fit started (an overhead pushed to
// its lower bound near 0 moves nothing there), it is left out of the collinearity test, and the
// leave-one-out step holds it at the bound.
//
// Leave-one-out: for each run, the parameters are refitted without it and the held-out run is simulated
// with them; its error is what a user should expect on a run the profile was not fitted on. The refit is
// one Gauss–Newton step from the full fit on the other runs, with the Jacobian the full fit already has
// (exact for a model linear in ln θ, and no extra simulation of the other runs); `loo_exact` refits them
// by Levenberg–Marquardt instead (n times the cost).
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace plansim::calib {

struct FitParameter {
  std::string key;
  double lo = 0, hi = 0;  // bounds, 0 < lo < hi
  double start = 0;       // initial value inside the bounds
};

// Predicted times (s) of the runs in `which` (indices into the run list), for parameter values `values`.
using RunEvaluator = std::function<std::vector<double>(const std::vector<double>& values, const std::vector<size_t>& which)>;

class FitError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunFit {
  std::vector<double> values;          // fitted parameters
  std::vector<bool> at_bound;          // a value pinned to its bound (the data want it further)
  std::vector<double> predicted_s;     // every run at `values`
  std::vector<double> loo_predicted_s; // every run predicted by the fit without it (empty without LOO)
  int iterations = 0;
  int evaluations = 0;                 // runs simulated in all
};

struct RunFitOptions {
  bool leave_one_out = true;
  bool loo_exact = false;
  int max_iterations = 30;
  int loo_max_iterations = 8;
};

RunFit fit_runs(const std::vector<double>& measured_s, const std::vector<FitParameter>& params,
                const RunEvaluator& evaluate, const RunFitOptions& options = {});

}  // namespace plansim::calib
