#pragma once
// io-internal: which calibration profiles a scenario runs with (README "Calibration profiles").
// Layers, least specific first: the profile plansim ships for the topology's GPU type, the topology's
// `calibration:`, the scenario's `calibration:` (or `--calibration`, which replaces it). The scenario's
// own `compute:` keys apply last. `calibration: none` in the scenario uses no profile at all.
#include <string>

#include "sim/io/yaml_reader.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim::io {

// `topology` is the scenario's `topology` value (a path or an inline mapping), `calibration` its
// `calibration` value (null when absent). Replaces s.compute by the merged keys and fills s.calibration.
void resolve_calibration(const YamlFile& f, const YAML::Node& topology, const YAML::Node& calibration,
                         const std::string& gpu_model, Scenario& s);

}  // namespace plansim::io
