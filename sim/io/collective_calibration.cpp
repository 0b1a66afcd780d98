#include "sim/io/collective_calibration.hpp"

#include <fmt/format.h>

#include "sim/io/nccl_calibration.hpp"
#include "sim/io/profile_yaml.hpp"
#include "sim/io/yaml_reader.hpp"

namespace plansim::io {

CollectiveCalibration collective_calibration(const std::filesystem::path& topology_file, const std::string& gpu_model,
                                             const std::string& cli_calibration) {
  CollectiveCalibration out;
  if (cli_calibration == "none") return out;
  if (const CalibrationProfile* shipped = shipped_profile_for(gpu_model); shipped && shipped->collectives) {
    out.params = *shipped->collectives;
    out.from = shipped->file;
  }
  const YamlFile topo = YamlFile::load(topology_file);
  if (topo.root().IsMap())
    if (const YAML::Node c = topo.root()["calibration"]) {
      if (!c.IsScalar() || c.Scalar().empty()) topo.fail(c, "'calibration' must be a profile file path");
      std::filesystem::path path = c.Scalar();
      if (path.is_relative()) path = topo.directory() / path;
      if (!std::filesystem::is_regular_file(path))
        topo.fail(c, fmt::format("calibration profile '{}' does not exist (paths are relative to the topology file)",
                                 path.string()));
      const CalibrationProfile p = load_profile(path);
      if (!p.applies_to_gpu(gpu_model))
        topo.fail(c, fmt::format("calibration profile '{}' does not apply to this topology's GPU, {}", p.name, gpu_model));
      if (p.collectives) {
        out.params = *p.collectives;
        out.from = path.string();
      }
    }
  if (!cli_calibration.empty()) {
    out.params = load_nccl_calibration(cli_calibration);
    out.from = cli_calibration;
  }
  return out;
}

}  // namespace plansim::io
