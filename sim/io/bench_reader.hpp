#pragma once
// Reads plansim-hw bench JSON (schema: hw/README.md) into calib::Measurements. JSON is read with the
// project's mark-aware YAML reader (YAML 1.2 is a superset of JSON), so every error - syntax, a missing
// or mistyped field, an unknown key, a row that failed its correctness check - is a ConfigError at the
// offending file:line:col.
#include <filesystem>

#include "sim/calib/measurements.hpp"

namespace plansim::io {

// Appends the file's rows to `m` (and its name to m.sources; m.device from the first file).
void read_bench_file(const std::filesystem::path& path, calib::Measurements& m);
// Same, from text (tests).
void read_bench_text(const std::string& text, const std::string& name, calib::Measurements& m);

}  // namespace plansim::io
