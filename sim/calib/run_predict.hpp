#pragma once
// Simulates published runs (calib/runs.hpp) as `plansim run` would, with extra compute keys on top of each
// run's own (a fit's trial values), several runs at once on worker threads. Deterministic: each run is an
// independent simulation, and results land by index.
#include <vector>

#include "sim/calib/runs.hpp"

namespace plansim::calib {

struct RunPrediction {
  double iteration_s = 0;
  bool oom = false;
};

// `which`: indices into set.runs. `extra` keys replace the runs' own. threads 0 = hardware concurrency.
std::vector<RunPrediction> predict_runs(const RunSet& set, const std::vector<size_t>& which,
                                        const ComputeOverrides& extra, unsigned threads = 0);

struct ErrorStats {
  size_t runs = 0;
  double mape = 0;      // mean |error|
  double max_abs = 0;   // largest |error|
  double bias = 0;      // mean error (+ = plansim optimistic)
};
ErrorStats error_stats(const std::vector<double>& errors);

}  // namespace plansim::calib
