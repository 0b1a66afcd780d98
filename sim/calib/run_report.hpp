#pragma once
// Text tables for `plansim calibrate --runs` and `plansim validate --runs`, and the profile a run fit writes.
// Errors are throughput errors: predicted / published throughput − 1 (+ = plansim optimistic), in %.
#include <map>
#include <string>
#include <vector>

#include "sim/calib/plan_order.hpp"
#include "sim/calib/run_fit.hpp"
#include "sim/calib/run_predict.hpp"
#include "sim/calib/profile.hpp"
#include "sim/calib/runs.hpp"

namespace plansim::calib {

// A fitted value as its compute key reads it: times carry " us" (their fits run in microseconds).
// `digits`: significant digits.
std::string fit_value_text(const std::string& key, double value, int digits = 17);

struct FittedProfileInfo {
  std::string name, stack, command;
  std::vector<std::string> applies_to;
  std::vector<std::pair<std::string, std::string>> kept;  // fixed keys written as given
};

std::string format_run_fit(const RunSet& set, const std::vector<FitParameter>& params, const RunFit& fit);
std::string fitted_profile_yaml(const RunSet& set, const std::vector<FitParameter>& params, const RunFit& fit,
                                const FittedProfileInfo& info);

struct RunValidation {
  std::vector<double> errors;                  // per run
  std::map<std::string, ErrorStats> datasets;  // by dataset
  ErrorStats all;
  std::map<std::string, PlanOrder> order;      // by dataset, datasets with grouped runs only
};
// Pairs of one group whose published rates are closer than this are not ordered (a sweep's own noise).
inline constexpr double kPlanOrderTie = 0.03;
RunValidation run_validation(const RunSet& set, const std::vector<RunPrediction>& predictions);
std::string format_run_validation(const RunSet& set, const std::vector<RunPrediction>& predictions,
                                  const RunValidation& v, const std::string& calibration);

}  // namespace plansim::calib
