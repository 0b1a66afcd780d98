#pragma once
// Reads runs files (schema: calib/runs.hpp, README "Calibration profiles") and loads every run's scenario
// with its `set` overrides plus `extra_overrides` (e.g. "calibration=none" for fitting). Bad input throws
// ConfigError at file:line:col; a run whose scenario is rejected names the run and the scenario's error.
#include <string>
#include <vector>

#include "sim/calib/runs.hpp"

namespace plansim::io {

// Runs files, one set each, in order. `datasets`: only the runs of these data sets (empty: all), across the
// files: naming one that no file has is an error; a file with none of them gives a set without runs.
std::vector<calib::RunSet> load_run_files(const std::vector<std::string>& files,
                                          const std::vector<std::string>& extra_overrides = {},
                                          const std::vector<std::string>& datasets = {});

// The runs of several sets as one (calibrate --runs A --runs B): `file` lists the files, `gpu` joins their
// GPUs with '+'; a run name repeated across the files is an error.
calib::RunSet merge_run_sets(std::vector<calib::RunSet> sets);

}  // namespace plansim::io
