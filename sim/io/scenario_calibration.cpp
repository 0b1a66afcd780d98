#include "sim/io/scenario_calibration.hpp"

#include <fmt/format.h>

#include "sim/calib/profile.hpp"
#include "sim/io/profile_yaml.hpp"

namespace plansim::io {
namespace {

std::filesystem::path resolve(const YamlFile& f, const YAML::Node& value, const std::string& what) {
  if (!value.IsScalar() || value.Scalar().empty())
    f.fail(value, fmt::format("'{}' must be a profile file path (or 'none')", what));
  std::filesystem::path path = value.Scalar();
  if (path.is_relative()) path = f.directory() / path;
  if (!std::filesystem::is_regular_file(path))
    f.fail(value, fmt::format("calibration profile '{}' does not exist (paths are relative to the file naming them)",
                              path.string()));
  return path;
}

// Loads the profile `value` names and checks it was made for this GPU.
CalibrationProfile named_profile(const YamlFile& f, const YAML::Node& value, const std::string& gpu_model) {
  CalibrationProfile p = load_profile(resolve(f, value, "calibration"));
  if (!p.applies_to_gpu(gpu_model)) {
    std::string list;
    for (const auto& a : p.applies_to) list += (list.empty() ? "" : ", ") + a;
    f.fail(value, fmt::format("calibration profile '{}' applies to {}, but this topology's GPU is {}", p.name, list,
                              gpu_model));
  }
  return p;
}

}  // namespace

void resolve_calibration(const YamlFile& f, const YAML::Node& topology, const YAML::Node& calibration,
                         const std::string& gpu_model, Scenario& s) {
  ComputeOverrides compute;
  ScenarioCalibration cal;
  const auto named = [&](const char* word) { return calibration && calibration.IsScalar() && calibration.Scalar() == word; };
  const bool none = named("none");
  // `defaults`: plansim's built-in compute model with the system's collectives (the topology's profile) —
  // the conditions `calibrate --runs` fits under, so that its profile reproduces its fit.
  const bool defaults = named("defaults");
  if (!none) {
    if (const CalibrationProfile* shipped = shipped_profile_for(gpu_model); shipped && !defaults)
      apply_profile(*shipped, "shipped", cal, compute);
    // The topology's own `calibration:` (a file's, relative to that file; or an inline topology's).
    if (topology && topology.IsMap()) {
      if (YAML::Node c = topology["calibration"]) apply_profile(named_profile(f, c, gpu_model), "topology", cal, compute);
    } else if (topology && topology.IsScalar()) {
      std::filesystem::path path = topology.Scalar();
      if (path.is_relative()) path = f.directory() / path;
      const YamlFile tf = YamlFile::load(path);
      if (tf.root().IsMap())
        if (YAML::Node c = tf.root()["calibration"]) apply_profile(named_profile(tf, c, gpu_model), "topology", cal, compute);
    }
    if (defaults) {
      compute = ComputeOverrides{};
    } else if (calibration) {
      const bool from_cli = f.pos(calibration).file.rfind("--", 0) == 0;
      apply_profile(named_profile(f, calibration, gpu_model), from_cli ? "command line" : "scenario", cal, compute);
    }
  }
  s.compute = merge(compute, s.compute);
  s.calibration = std::move(cal);
}

}  // namespace plansim::io
