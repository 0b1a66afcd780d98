#pragma once
// Calibration profiles as YAML (schema: README "Calibration profiles"):
//
//   plansim_profile: 1                       # format version (required)
//   name: h100-sxm                           # required
//   applies_to: [H100-SXM]                   # GPU model prefixes it was fitted for (topology `gpu:`)
//   stack: "Megatron-Core + Transformer Engine"   # software it was fitted on (free text)
//   source: {summary: "...", fitted_by: "plansim calibrate --runs ...", data: ["...", ...]}   # required
//   compute: {sustained_factor: 0.8, ...}    # the scenario's `compute:` keys
//   collectives: {efficiency: {nvlink: 0.8}, device_latency: 5 us, ...}   # the NCCL model (nccl_calibration.hpp)
//   fit: ...                                 # written by `plansim calibrate`: residuals, leave-one-out (not read)
//   measured: ...                            # microbenchmark fits behind the keys above (not read)
//
// Bad input throws ConfigError at file:line:col.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "sim/calib/profile.hpp"

namespace plansim::io {

CalibrationProfile load_profile(const std::filesystem::path& file);
CalibrationProfile parse_profile(const std::string& text, const std::string& name);

// The profiles plansim ships (validate/<gpu>/profile.yaml, compiled into the binary), by file name.
const std::vector<CalibrationProfile>& shipped_profiles();
// The shipped profile for a GPU model (`applies_to` prefix match), if any.
const CalibrationProfile* shipped_profile_for(const std::string& gpu_model);

}  // namespace plansim::io

namespace plansim::io {

// Compute keys given as text pairs ("sustained_factor", "0.8"), read by the scenario's `compute:` reader;
// errors are reported at `where` (e.g. "--fit sustained_factor").
ComputeOverrides parse_compute_keys(const std::vector<std::pair<std::string, std::string>>& keys,
                                    const std::string& where);

}  // namespace plansim::io
