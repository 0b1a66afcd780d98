#pragma once
// `plansim lint`: simulate a scenario, run every rule (rule.hpp), simulate each finding's candidate
// fixes (in parallel) and report the best one with its measured cost: the seconds per iteration and
// tokens/s the plan loses against the fixed plan. A finding whose best fix saves less than
// `min_gain` of the iteration is dropped (the rule's symptom is not what limits this plan), except
// OOM. Findings whose fix is identical are merged (both rule ids are listed).
#include <filesystem>
#include <string>
#include <vector>

#include "sim/advise/point_metrics.hpp"
#include "sim/advise/rule.hpp"

namespace plansim::advise {

struct MeasuredFinding {
  std::vector<std::string> rules;  // the first is the rule that fired first
  std::string what;
  std::string where;
  std::string why;
  std::vector<std::string> fix;    // --set overrides; empty when no candidate was valid and fitting
  bool fix_found = false;
  PointMetrics fixed;
  double saved_s = 0;              // base iteration − time for the same tokens at the fixed rate
  double saved_fraction = 0;       // of the base iteration
  double tokens_per_s_gain = 0;    // fixed − base
};

struct LintResult {
  std::string scenario;
  PointMetrics base;
  std::vector<MeasuredFinding> findings;
};

struct LintOptions {
  std::vector<std::string> sets;
  LintThresholds thresholds;
  int jobs = 1;
};

LintResult run_lint(const std::filesystem::path& scenario, const LintOptions& options);

std::string lint_text(const LintResult& r);
std::string lint_json(const LintResult& r);

}  // namespace plansim::advise
