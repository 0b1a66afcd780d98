#pragma once
// Reads the timing part of a report JSON (from `plansim run` or `plansim-hw run`): top-level
// iteration_time_s and `ops`: [{name, class, rank, duration_s}, ...]. Other keys of the report are
// ignored (the report schema belongs to sim/report), except `ranks[].executed_as` of a report folded by
// symmetry; errors are ConfigErrors at file:line:col. Reports are JSON of up to 512 MiB (io/json_document.hpp).
#include <filesystem>
#include <string>

#include "sim/calib/validate.hpp"

namespace plansim::io {

calib::ReportTimings read_report_timings(const std::filesystem::path& path);
calib::ReportTimings read_report_timings_text(const std::string& text, const std::string& name);

}  // namespace plansim::io
