#pragma once
// Writes NcclModelParams as a profile's `collectives:` section (the format sim/io/nccl_calibration.hpp
// reads), keeping only the keys whose value differs from NCCL's documented defaults (NcclModelParams{}),
// so that a profile fitted from a start profile (`plansim calibrate --topology --calibration START`)
// carries the start's constants (e.g. Ampere's channel caps) beside the fitted ones. Reading the text
// back gives the same parameters (tests/calib/test_nccl_params_yaml.cpp).
#include <string>

#include "sim/coll/nccl_model.hpp"

namespace plansim::calib {

// "collectives:\n  key: value\n..." (always at least the efficiency asked and the two per-call latency keys).
std::string nccl_params_yaml(const NcclModelParams& p, const std::string& always_efficiency_key = "");

}  // namespace plansim::calib
