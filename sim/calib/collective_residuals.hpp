#pragma once
// What `plansim calibrate` prints beside the profile for its collective fits: per group (op, algorithm,
// ranks) and per measured size, the measured time, the fitted time, the residual and the leave-one-out
// error (the point's error when the group is refitted without it, calibrate.hpp's fit). Errors are
// (fitted - measured) / measured, the sign `collective --compare` uses.
#include <string>

#include "sim/calib/calibrate.hpp"

namespace plansim::calib {

struct SizeResidual {
  double size_bytes = 0;
  double measured_s = 0;
  double fitted_s = 0;
  double residual = 0;               // (fitted - measured) / measured
  bool has_loo = false;              // false when the group without this point cannot be fitted
  double leave_one_out = 0;          // the same, from the fit without this point
  SourcePos pos;
};

// The residuals of `fit`'s group in `m`, by size.
std::vector<SizeResidual> collective_residuals(const Measurements& m, const CollectiveFit& fit);

// All groups of `p` as a table (empty when there are none).
std::string format_collective_residuals(const Measurements& m, const Profile& p);

}  // namespace plansim::calib
