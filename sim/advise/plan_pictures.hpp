// sim/advise/plan_pictures.hpp
#pragma once
#include <string>
#include <yaml-cpp/yaml.h>
namespace plansim::advise {
enum class PlanPicture { timeline, memory, breakdown };
// One picture of a simulated run drawn from its `plansim run --json` report (the document the CLI writes,
// read back as a YAML node; the timeline needs what the report records per op / per schedule slot).
// Returns a complete SVG document (gnuplot's svg terminal). Throws ConfigError when the report lacks
// what the picture needs (e.g. no per-op records) or gnuplot is missing.
std::string plan_picture_svg(PlanPicture picture, const YAML::Node& run_report);
}  // namespace plansim::advise
