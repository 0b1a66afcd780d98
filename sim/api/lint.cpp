#include <fmt/format.h>

#include "sim/api/commands.hpp"
#include "sim/core/error.hpp"
#include "sim/io/checked_number.hpp"

namespace plansim::api {

advise::LintResult lint(const std::string& scenario, const std::vector<std::string>& sets,
                        const std::vector<std::string>& thresholds, int jobs) {
  advise::LintOptions o;
  o.sets = sets;
  o.jobs = jobs > 0 ? jobs : advise::default_jobs();
  for (const auto& t : thresholds) {
    const auto eq = t.find('=');
    const SourcePos where{"--threshold " + t, 0, 0};
    if (eq == std::string::npos) throw ConfigError(where, "a threshold must look like name=value");
    double v = 0;
    try {
      v = io::real_in(t.substr(eq + 1), {0, 1e12});
    } catch (const io::UnitError& e) {
      throw ConfigError(where, fmt::format("the value {}", e.what()));
    }
    if (!o.thresholds.set(t.substr(0, eq), v)) {
      std::string names;
      for (const auto& [k, _] : o.thresholds.values()) names += " " + k;
      throw ConfigError(where, "unknown threshold; known:" + names);
    }
  }
  return advise::run_lint(scenario, o);
}

}  // namespace plansim::api
