// format_run_validation(): the per-run table of `plansim validate --runs` shows each figure in the metric's own
// unit — a time as a time, a throughput as a throughput — beside the throughput error.
#include <catch2/catch.hpp>

#include "sim/calib/run_report.hpp"

using namespace plansim::calib;

TEST_CASE("validate --runs prints a predicted iteration time as a time", "[calib]") {
  RunSet set;
  set.file = "runs.yaml";
  set.gpu = "A100";
  MeasuredRun r;
  r.name = "slow";
  r.dataset = "d";
  r.metric = RunMetric::iteration_time_s;
  r.value = 2.0;
  set.runs.push_back(r);
  const std::vector<RunPrediction> predicted{{1.0, false}};  // twice as fast as published
  const RunValidation v = run_validation(set, predicted);
  REQUIRE(v.errors.size() == 1);
  CHECK(v.errors[0] == Approx(1.0));  // throughput +100 %
  CHECK(v.order.empty());              // no groups
  const std::string text = format_run_validation(set, predicted, v, "none");
  CHECK_THAT(text, Catch::Matchers::Contains("iteration_time_s                 2           1  +100.0 %"));
}
