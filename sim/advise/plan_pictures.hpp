#pragma once
// The pictures of a simulated run (README "Pictures"): `plansim plot timeline|memory|breakdown` and the
// figures `plansim report` inlines, all drawn from the `plansim run --json` report document.
//   timeline:  one row per pipeline stage (stage 0 on top), a box per schedule slot (the report's
//              `pipeline.slots`: F, B, W of one micro-batch on one chunk), hue by micro-batch, shade by
//              phase; thin communication lanes beneath each stage from the stage rank's `ops`;
//   memory:    per-stage stacked bars of `stages[].memory` against `hbm_capacity_bytes`;
//   breakdown: per stage, `stages[].time_breakdown_s` stacked to the iteration time.
#include <optional>
#include <string>
#include <yaml-cpp/yaml.h>

#include "sim/advise/plot.hpp"
#include "sim/report/report.hpp"

namespace plansim::advise {

enum class PlanPicture { timeline, memory, breakdown };

// One picture of a simulated run drawn from its `plansim run --json` report (the document the CLI writes,
// read back as a YAML node; the timeline needs what the report records per op / per schedule slot).
// Returns a complete SVG document (gnuplot's svg terminal). Throws ConfigError when the report lacks
// what the picture needs (e.g. no per-op records) or gnuplot is missing.
std::string plan_picture_svg(PlanPicture picture, const YAML::Node& run_report);

// The gnuplot data and commands behind each picture (render with render_plot / render_plot_svg).
PlotSpec plan_picture_spec(PlanPicture picture, const YAML::Node& run_report);
PlotSpec plot_timeline(const YAML::Node& run_report);   // plot_timeline.cpp
PlotSpec plot_memory(const YAML::Node& run_report);     // plot_memory.cpp
PlotSpec plot_breakdown(const YAML::Node& run_report);  // plot_breakdown.cpp
// The report's `--json` document read back as plan_picture_spec reads it, the per-op records trimmed to
// the stages' ranks (the only ones the timeline draws): `plansim plot timeline|memory|breakdown`.
YAML::Node run_report_node(Report report);
// "timeline", "memory", "breakdown" -> the picture; nullopt for another name.
std::optional<PlanPicture> plan_picture_named(const std::string& name);

}  // namespace plansim::advise
