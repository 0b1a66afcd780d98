#pragma once
// The NCCL model parameters `plansim collective` runs a topology with, layered as a scenario's are
// (io/scenario_calibration.hpp, README "Calibration profiles"): the profile plansim ships for the topology's
// GPU type, then the topology file's `calibration:`, then --calibration (a profile, or the NCCL-only format of
// io/nccl_calibration.hpp). The most specific layer that has `collectives:` gives them; none: the model's
// documented defaults. `--calibration none` uses no profile at all.
#include <filesystem>
#include <string>

#include "sim/coll/nccl_model.hpp"

namespace plansim::io {

struct CollectiveCalibration {
  NcclModelParams params;
  std::string from;  // the file that gave them; empty for the defaults
};

// `gpu_model`: the topology's `gpu:` (Topology::gpu_spec().model). A topology `calibration:` made for
// another GPU is a ConfigError at the key.
CollectiveCalibration collective_calibration(const std::filesystem::path& topology_file, const std::string& gpu_model,
                                             const std::string& cli_calibration);

}  // namespace plansim::io
