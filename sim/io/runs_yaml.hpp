#pragma once
// Reads a runs file (schema: calib/runs.hpp, README "Calibration profiles") and loads every run's scenario
// with its `set` overrides plus `extra_overrides` (e.g. "calibration=none" for fitting). Bad input throws
// ConfigError at file:line:col; a run whose scenario is rejected names the run and the scenario's error.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/calib/runs.hpp"

namespace plansim::io {

// `datasets`: only the runs of these data sets (empty: all); naming one the file does not have is an error.
calib::RunSet load_runs(const std::filesystem::path& file, const std::vector<std::string>& extra_overrides = {},
                        const std::vector<std::string>& datasets = {});

// Several runs files, one set each, in order. `datasets` filters across them: each must be in at least one
// file; a file with none of them gives a set without runs.
std::vector<calib::RunSet> load_run_files(const std::vector<std::string>& files,
                                          const std::vector<std::string>& extra_overrides = {},
                                          const std::vector<std::string>& datasets = {});

// The runs of several sets as one (calibrate --runs A --runs B): `file` lists the files, `gpu` joins their
// GPUs with '+'; a run name repeated across the files is an error.
calib::RunSet merge_run_sets(std::vector<calib::RunSet> sets);

}  // namespace plansim::io
