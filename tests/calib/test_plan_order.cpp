// plan_order(): the share of a sweep's plan pairs that plansim orders as published, on hand-counted cases.
#include <catch2/catch.hpp>

#include "sim/calib/plan_order.hpp"

using namespace plansim::calib;

TEST_CASE("plan_order counts pairs within a group only, skipping published near-ties", "[calib]") {
  // Group a: published 100 > 90 > 80; predicted 50 > 45 but 40 > 45 swapped for the last two.
  // Group b: 100 vs 98.5 is within 3 %: not ordered. Run 5 has no group.
  const std::vector<std::string> group{"a", "a", "a", "b", "b", ""};
  const std::vector<double> published{100, 90, 80, 100, 98.5, 10};
  const std::vector<double> predicted{50, 40, 45, 1, 2, 99};
  const PlanOrder o = plan_order(group, published, predicted, 0.03);
  CHECK(o.groups == 1);
  CHECK(o.pairs == 3);      // (0,1) (0,2) (1,2)
  CHECK(o.agreeing == 2);   // (1,2) is swapped
  CHECK(o.within_tie == 1); // group b
  CHECK(o.share() == Approx(2.0 / 3));
}

TEST_CASE("plan_order: a predicted tie orders nothing, whichever run is listed first", "[calib]") {
  const std::vector<std::string> group{"g", "g"};
  CHECK(plan_order(group, {1, 2}, {5, 5}, 0.0).agreeing == 0);
  CHECK(plan_order(group, {2, 1}, {5, 5}, 0.0).agreeing == 0);
  CHECK(plan_order(group, {2, 1}, {6, 5}, 0.0).agreeing == 1);
  CHECK(plan_order(group, {1, 2}, {6, 5}, 0.0).agreeing == 0);
}

TEST_CASE("plan_order of runs in no group is empty", "[calib]") {
  const PlanOrder o = plan_order({"", ""}, {1, 2}, {1, 2}, 0.03);
  CHECK(o.pairs == 0);
  CHECK(o.groups == 0);
  CHECK(o.share() == 0);
}
