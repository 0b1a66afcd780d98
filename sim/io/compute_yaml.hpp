#pragma once
// io-internal: the `compute:` keys (README "Scenario YAML"), read by scenarios and calibration profiles alike.
#include "sim/io/yaml_reader.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim {

// Every key validated at its file:line:col; unknown keys rejected with "did you mean".
ComputeOverrides read_compute(const io::YamlFile& f, const YAML::Node& n);

}  // namespace plansim
