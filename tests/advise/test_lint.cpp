// plansim lint: every rule fires on its demo scenario (scenarios/antipatterns/), its fix is measured by
// simulating the fixed plan and really improves throughput, and the known-good plan stays silent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "sim/advise/lint.hpp"
#include "sim/advise/placement.hpp"
#include "sim/advise/point_runner.hpp"
#include "sim/io/scenario_loader.hpp"

using namespace plansim;
using namespace plansim::advise;

namespace {

std::string demo(const std::string& name) { return std::string(PLANSIM_SOURCE_DIR) + "/scenarios/antipatterns/" + name; }

const MeasuredFinding* find_rule(const LintResult& r, const std::string& rule) {
  for (const auto& f : r.findings)
    if (std::find(f.rules.begin(), f.rules.end(), rule) != f.rules.end()) return &f;
  return nullptr;
}

LintResult lint(const std::string& file, LintThresholds th = {}) {
  LintOptions o;
  o.jobs = 2;
  o.thresholds = th;
  return run_lint(demo(file), o);
}

// The fix, re-simulated on its own, gives the reported figures and beats the base plan.
void check_fix(const std::string& file, const MeasuredFinding& f, const LintResult& r) {
  REQUIRE(f.fix_found);
  const PointResult again = run_point(demo(file), {}, f.fix);
  REQUIRE(again.valid);
  CHECK_FALSE(again.metrics.oom);
  CHECK(again.metrics.tokens_per_s == Approx(f.fixed.tokens_per_s).epsilon(1e-9));
  if (!r.base.oom) {
    CHECK(again.metrics.tokens_per_s > r.base.tokens_per_s);
    CHECK(f.saved_s > 0);
    CHECK(f.saved_fraction == Approx(1 - r.base.tokens_per_s / again.metrics.tokens_per_s));
  }
}

}  // namespace

TEST_CASE("lint: each rule fires on its demo scenario and its fix improves the simulated plan", "[advise]") {
  const std::pair<const char*, const char*> cases[] = {
      {"tp-slow-link.yaml", "tp-slow-link"},         {"tp-pcie.yaml", "tp-slow-link"},
      {"tp-rank-order.yaml", "tp-rank-order"},       {"pipeline-bubble.yaml", "pipeline-bubble"},
      {"small-batch-dp.yaml", "small-batch-dp"},     {"grad-accumulation.yaml", "grad-accumulation"},
      {"dp-slow-fabric.yaml", "dp-slow-fabric"},     {"unbalanced-stages.yaml", "unbalanced-stages"},
      {"ep-cp-placement.yaml", "ep-cp-placement"},   {"oom.yaml", "oom"},
  };
  for (const auto& [file, rule] : cases) {
    INFO(file << " / " << rule);
    const LintResult r = lint(file);
    const MeasuredFinding* f = find_rule(r, rule);
    REQUIRE(f != nullptr);
    check_fix(file, *f, r);
  }
}

TEST_CASE("lint: the known-good plan has no findings", "[advise]") {
  const LintResult r = lint("good.yaml");
  CHECK(r.findings.empty());
  CHECK_FALSE(r.base.oom);
}

TEST_CASE("lint: the rank-order fix changes only the order and keeps TP inside one server", "[advise]") {
  const LintResult r = lint("tp-rank-order.yaml");
  const MeasuredFinding* f = find_rule(r, "tp-rank-order");
  REQUIRE(f != nullptr);
  REQUIRE(f->fix.size() == 1);
  CHECK(f->fix[0].rfind("parallel.order=[tp,", 0) == 0);
  LoadedScenario before = load_scenario(demo("tp-rank-order.yaml"));
  LoadedScenario after = load_scenario(demo("tp-rank-order.yaml"), f->fix);
  CHECK(place_group(before.scenario, before.topology, {Dim::tp}).hosts == 2);
  CHECK(place_group(after.scenario, after.topology, {Dim::tp}).hosts == 1);
  CHECK(place_group(after.scenario, after.topology, {Dim::tp}).links == std::set<LinkKind>{LinkKind::nvlink});
}

TEST_CASE("lint: the OOM fix is the smallest change that fits", "[advise]") {
  const LintResult r = lint("oom.yaml");
  REQUIRE(r.base.oom);
  const MeasuredFinding* f = find_rule(r, "oom");
  REQUIRE(f != nullptr);
  CHECK(f->fix.size() == 1);
  CHECK(f->fixed.memory_peak_gib < f->fixed.hbm_capacity_gib);
}

TEST_CASE("lint: thresholds are honoured", "[advise]") {
  LintThresholds th;
  REQUIRE(th.set("bubble_overhead", 100.0));
  REQUIRE(th.set("stage_imbalance", 100.0));
  CHECK_FALSE(th.set("no_such_threshold", 1.0));
  const LintResult r = lint("pipeline-bubble.yaml", th);
  CHECK(find_rule(r, "pipeline-bubble") == nullptr);
  // The bubble the rule measures is the simulated one: 16 stages × 4 micro-batches is near (p−1)/m = 3.75.
  CHECK(r.base.bubble_overhead > 3.0);
}

TEST_CASE("lint unbalanced-stages: the fix is a stage_layers partition, and a balanced one is silent", "[advise]") {
  // The demo's 24 layers sit 6 per stage; Llama 3's vocabulary makes the last stage's logits worth
  // about 6 layers. The rule reads the actual partition, proposes fewer layers for the logits stage,
  // and the simulated fix beats both the base plan and halving the stages.
  const LintResult r = lint("unbalanced-stages.yaml");
  const MeasuredFinding* f = find_rule(r, "unbalanced-stages");
  REQUIRE(f != nullptr);
  REQUIRE(f->fix.size() == 1);
  REQUIRE(f->fix[0].rfind("parallel.stage_layers=[", 0) == 0);
  CHECK_THAT(f->where, Catch::Contains("stage 3") && Catch::Contains("logits") && Catch::Contains("[6,6,6,6]"));
  check_fix("unbalanced-stages.yaml", *f, r);
  LoadedScenario fixed = load_scenario(demo("unbalanced-stages.yaml"), f->fix);
  const std::vector<int>& counts = fixed.scenario.parallel.stage_layers;
  REQUIRE(counts.size() == 4);
  CHECK(counts[3] < 6);                                             // the logits stage gives layers away
  CHECK(*std::max_element(counts.begin(), counts.end()) > 6);       // to the others
  const PointResult halved = run_point(demo("unbalanced-stages.yaml"), {}, {"parallel.pp=2", "parallel.dp=4"});
  CHECK(f->fixed.tokens_per_s > halved.metrics.tokens_per_s);
  // The fixed plan, re-linted, no longer has an unbalanced stage: the rule stays silent on a
  // stage_layers plan that balances the logits stage.
  LintOptions o;
  o.jobs = 2;
  o.sets = f->fix;
  const LintResult again = run_lint(demo("unbalanced-stages.yaml"), o);
  CHECK(find_rule(again, "unbalanced-stages") == nullptr);
  // ... and fires again when explicit counts put the layers back on the logits stage.
  o.sets = {"parallel.stage_layers=[5,5,5,9]"};
  const LintResult worse = run_lint(demo("unbalanced-stages.yaml"), o);
  const MeasuredFinding* w = find_rule(worse, "unbalanced-stages");
  REQUIRE(w != nullptr);
  CHECK_THAT(w->where, Catch::Contains("[5,5,5,9]") && !Catch::Contains("default"));
}
