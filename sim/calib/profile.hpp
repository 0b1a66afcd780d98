#pragma once
// A calibration profile: the one format for everything plansim can calibrate (README "Calibration
// profiles"). Per GPU type it holds compute keys (the scenario's `compute:` section: GEMM rate and shape
// efficiency, sustained factor, attention, HBM, MoE overheads); per system the NCCL model's parameters
// (`collectives:`, the format of validate/calibration/*.yaml). `plansim calibrate` writes it, every command
// that simulates reads it (io/profile_yaml.hpp). Plain data; no YAML here.
#include <memory>
#include <string>
#include <vector>

#include "sim/coll/nccl_model.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim {

// 2: the NCCL model's per-call `extra_latency` split into `device_latency` and `launch_overhead`
// (nccl_model.hpp); format 1 is still read (its extra_latency as device_latency).
inline constexpr int kProfileFormatVersion = 2;

struct CalibrationProfile {
  std::string name;                     // `name:`
  std::string file;                     // where it was read from
  std::vector<std::string> applies_to;  // GPU model prefixes (the topology's `gpu:`), e.g. "H100-SXM"
  std::string stack;                    // the software stack it was fitted on (free text)
  std::string source;                   // one line of provenance (`source.summary`, else `source.fitted_by`)
  ComputeOverrides compute;             // the keys it sets
  std::shared_ptr<const NcclModelParams> collectives;  // null when the profile has no `collectives:`
  // `base: none`: the profile was fitted on plansim's built-in defaults (as `calibrate --runs` fits), so
  // it replaces the layers below it instead of stacking on them: applying it reproduces its fit.
  bool base_none = false;

  // True when `gpu_model` starts with one of `applies_to` (an empty list applies to every GPU).
  [[nodiscard]] bool applies_to_gpu(const std::string& gpu_model) const;
  [[nodiscard]] CalibrationLayer layer(const std::string& origin) const;
};

// `s` as a double-quoted YAML string (for the profiles `plansim calibrate` writes).
std::string yaml_quoted(const std::string& s);

// `over`'s keys replace `base`'s; keys `over` leaves unset keep `base`'s.
ComputeOverrides merge(const ComputeOverrides& base, const ComputeOverrides& over);

// Stacks `profile` on `cal` (the more specific layer last): records the layer, merges its compute keys
// into `compute`, and takes its collectives when it has them.
void apply_profile(const CalibrationProfile& profile, const std::string& origin, ScenarioCalibration& cal,
                   ComputeOverrides& compute);

}  // namespace plansim
