#pragma once
// Lint rules: each looks at a simulated plan and may return a finding with candidate fixes (each a
// list of --set overrides). The lint engine (lint.hpp) simulates every candidate and keeps the best,
// so a finding's cost is measured, never a formula. One file per rule (rule_<id>.cpp), one line per
// rule in registry.cpp.
#include <map>
#include <string>
#include <vector>

#include "sim/plan/scenario.hpp"
#include "sim/report/report.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::advise {

// Thresholds (README "plansim lint"), overridable with `--threshold name=value`.
struct LintThresholds {
  double bubble_overhead = 0.25;    // pipeline-bubble: bubble overhead (idle / busy) above this
  double small_batch_dp = 0.15;     // small-batch-dp: exposed DP communication above this share of iteration
  int small_batch_min_dp = 8;       //   ... with at least this many DP ranks
  double dp_exposed = 0.05;         // dp-slow-fabric: exposed DP communication above this share
  double dp_min_params_b = 1.0;     //   ... for models of at least this many billion parameters
  double stage_imbalance = 0.10;    // unbalanced-stages: slowest stage busy this much above the mean
  double min_gain = 0.02;           // a fix must save at least this share of iteration time to be reported
  // Returns false when `name` is not a threshold.
  bool set(const std::string& name, double value);
  [[nodiscard]] std::map<std::string, double> values() const;
};

struct LintContext {
  const Scenario& scenario;
  const Topology& topology;
  const Report& report;
  const LintThresholds& th;
};

struct Finding {
  std::string rule;
  std::string what;
  std::string where;
  std::string why;
  std::vector<std::vector<std::string>> candidates;  // fixes to simulate; the best one is reported
  bool always_report = false;  // OOM: reported even without a throughput gain
};

struct Rule {
  const char* id;
  const char* summary;
  std::vector<Finding> (*check)(const LintContext&);
};

const std::vector<Rule>& lint_rules();

// One function per rule file.
std::vector<Finding> check_tp_slow_link(const LintContext& c);
std::vector<Finding> check_tp_rank_order(const LintContext& c);
std::vector<Finding> check_pipeline_bubble(const LintContext& c);
std::vector<Finding> check_small_batch_dp(const LintContext& c);
std::vector<Finding> check_grad_accumulation(const LintContext& c);
std::vector<Finding> check_dp_slow_fabric(const LintContext& c);
std::vector<Finding> check_unbalanced_stages(const LintContext& c);
std::vector<Finding> check_ep_cp_placement(const LintContext& c);
std::vector<Finding> check_oom(const LintContext& c);
std::vector<Finding> check_finetune_fabric(const LintContext& c);

// Helpers shared by rules.
std::string set_int(const char* key, int64_t v);  // "key=v"
double exposed_share(const Report& r, Dim d);     // exposed_comm_s[d] / iteration

}  // namespace plansim::advise
