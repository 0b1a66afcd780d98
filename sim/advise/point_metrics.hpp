#pragma once
// The key figures of one simulated plan, as sweep/search/lint tables print them (README "Definitions").
#include <array>
#include <string>

#include "sim/report/report.hpp"

namespace plansim::advise {

struct PointMetrics {
  double iteration_s = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  double bubble_fraction = 0;              // mean over stages, of iteration time
  double bubble_overhead = 0;              // mean over stages, of busy compute
  std::array<double, 5> exposed_comm_s{};  // by Dim (tp, cp, ep, dp, pp)
  double memory_peak_gib = 0;
  double hbm_capacity_gib = 0;
  bool oom = false;
  int world = 0;
  int micro_batches = 0;
};

PointMetrics metrics_of(const Report& r);

// Dimension names in Dim order, for column headers.
const std::array<const char*, 5>& dim_names();

// {"iteration_s":..,"tokens_per_s":..,...} without braces' neighbours: a complete JSON object.
std::string metrics_json(const PointMetrics& m);
// The inverse of metrics_json (results files, advise/results_file.hpp): doubles round-trip exactly.
// Throws nlohmann::json's exceptions on a missing or mistyped key.
PointMetrics metrics_from_json(const std::string& json);

}  // namespace plansim::advise
