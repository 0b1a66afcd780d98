#include "sim/advise/run_report_node.hpp"

#include <fmt/format.h>

namespace plansim::advise {

void report_error(const YAML::Node& n, const std::string& what) {
  const YAML::Mark m = n.IsDefined() ? n.Mark() : YAML::Mark::null_mark();
  const bool known = m.line >= 0;
  throw ConfigError(SourcePos{"run report", known ? m.line + 1 : 0, known ? m.column + 1 : 0}, what);
}

YAML::Node report_field(const YAML::Node& n, const std::string& key) {
  if (!n.IsMap()) report_error(n, fmt::format("expected a map holding '{}' (a `plansim run --json` report)", key));
  YAML::Node v = n[key];
  if (!v.IsDefined() || v.IsNull())
    report_error(n, fmt::format("the report has no '{}' (write it with `plansim run --json` of this version)", key));
  return v;
}

double report_number(const YAML::Node& n, const std::string& key) {
  const YAML::Node v = report_field(n, key);
  try {
    return v.as<double>();
  } catch (const YAML::Exception&) {
    report_error(v, fmt::format("'{}' must be a number", key));
  }
}

int report_int(const YAML::Node& n, const std::string& key) {
  const YAML::Node v = report_field(n, key);
  try {
    return v.as<int>();
  } catch (const YAML::Exception&) {
    report_error(v, fmt::format("'{}' must be an integer", key));
  }
}

std::string report_string(const YAML::Node& n, const std::string& key) {
  const YAML::Node v = report_field(n, key);
  if (!v.IsScalar()) report_error(v, fmt::format("'{}' must be a string", key));
  return v.Scalar();
}

YAML::Node report_list(const YAML::Node& n, const std::string& key, bool optional) {
  if (optional && (!n.IsMap() || !n[key].IsDefined())) return YAML::Node(YAML::NodeType::Sequence);
  const YAML::Node v = report_field(n, key);
  if (!v.IsSequence()) report_error(v, fmt::format("'{}' must be a list", key));
  return v;
}

}  // namespace plansim::advise
