#pragma once
// Reading a `plansim run --json` report back as a YAML node (plan_pictures.hpp): each field the
// pictures need, or a ConfigError at the node's position naming what is missing.
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "sim/core/error.hpp"

namespace plansim::advise {

// "run report:L:C: <what>" at n's position (the report text's line and column when it has them).
[[noreturn]] void report_error(const YAML::Node& n, const std::string& what);
// n[key], which must exist (a map's field).
YAML::Node report_field(const YAML::Node& n, const std::string& key);
double report_number(const YAML::Node& n, const std::string& key);
int report_int(const YAML::Node& n, const std::string& key);
std::string report_string(const YAML::Node& n, const std::string& key);
// n[key], which must be a sequence (empty when `optional` and absent).
YAML::Node report_list(const YAML::Node& n, const std::string& key, bool optional = false);

}  // namespace plansim::advise
