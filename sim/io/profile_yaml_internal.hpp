#pragma once
// io-internal: the parts of a calibration profile shared by the io readers (yaml-cpp types).
#include "sim/calib/profile.hpp"
#include "sim/io/yaml_reader.hpp"

namespace plansim::io {

// A calibration profile document (README "Calibration profiles"); `f.name()` becomes its `file`.
CalibrationProfile read_profile(const YamlFile& f);
// The NCCL model's keys (io/nccl_calibration.hpp); `legacy_header` also accepts the NCCL-only format's
// `system:` and `source:`. `format_version`: the profile's plansim_profile (1 for the NCCL-only format),
// which decides how `extra_latency` is read.
NcclModelParams read_nccl_section(const YamlFile& f, const YAML::Node& node, bool legacy_header, int format_version);

}  // namespace plansim::io
