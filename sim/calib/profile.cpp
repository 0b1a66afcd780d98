#include "sim/calib/profile.hpp"

namespace plansim {
namespace {

template <class T>
void take(std::optional<T>& into, const std::optional<T>& from) {
  if (from) into = from;
}

}  // namespace

bool CalibrationProfile::applies_to_gpu(const std::string& gpu_model) const {
  if (applies_to.empty()) return true;
  for (const auto& prefix : applies_to)
    if (gpu_model.rfind(prefix, 0) == 0) return true;
  return false;
}

std::string yaml_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + '"';
}

CalibrationLayer CalibrationProfile::layer(const std::string& origin) const { return {origin, file, name, source}; }

ComputeOverrides merge(const ComputeOverrides& base, const ComputeOverrides& over) {
  ComputeOverrides out = base;
  for_each_compute_key(out, over, [](auto& into, const auto& from) { take(into, from); });
  return out;
}

void apply_profile(const CalibrationProfile& profile, const std::string& origin, ScenarioCalibration& cal,
                   ComputeOverrides& compute) {
  if (profile.base_none) {
    // Fitted on the built-in compute model with the system's collectives in effect (`calibrate --runs`
    // fits under `calibration: defaults`): the compute keys of the layers below go, the layer whose
    // collectives are in effect stays (a profile with its own collectives replaces them below).
    std::vector<CalibrationLayer> kept;
    for (const CalibrationLayer& l : cal.layers)
      if (cal.collectives && l.file == cal.collectives_from) kept.push_back(l);
    cal.layers = std::move(kept);
    compute = ComputeOverrides{};
  }
  cal.layers.push_back(profile.layer(origin));
  compute = merge(compute, profile.compute);
  if (profile.collectives) {
    cal.collectives = profile.collectives;
    cal.collectives_from = profile.file;
  }
}

}  // namespace plansim
