#pragma once
// Reads a runs file (schema: calib/runs.hpp, README "Calibration profiles") and loads every run's scenario
// with its `set` overrides plus `extra_overrides` (e.g. "calibration=none" for fitting). Bad input throws
// ConfigError at file:line:col; a run whose scenario is rejected names the run and the scenario's error.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/calib/runs.hpp"

namespace plansim::io {

calib::RunSet load_runs(const std::filesystem::path& file, const std::vector<std::string>& extra_overrides = {});

}  // namespace plansim::io
