// plansim sweep: --vary parsing, the cartesian product's order, invalid points kept in the results.
#include <catch2/catch.hpp>

#include "sim/advise/sweep.hpp"
#include "sim/core/error.hpp"

using namespace plansim;
using namespace plansim::advise;

TEST_CASE("sweep: --vary keeps commas inside brackets with the value", "[advise]") {
  const VaryKey k = parse_vary("parallel.order=[tp,cp,ep,dp,pp],[dp,cp,ep,tp,pp]");
  CHECK(k.key == "parallel.order");
  REQUIRE(k.values.size() == 2);
  CHECK(k.values[1] == "[dp,cp,ep,tp,pp]");
  CHECK_THROWS_AS(parse_vary("no-equals"), ConfigError);
  CHECK_THROWS_AS(parse_vary("a=1,,2"), ConfigError);
}

TEST_CASE("sweep: the cartesian product, last key fastest", "[advise]") {
  const auto pts = cartesian({parse_vary("a=1,2"), parse_vary("b=x,y,z")});
  REQUIRE(pts.size() == 6);
  CHECK(pts[0] == std::vector<std::string>{"a=1", "b=x"});
  CHECK(pts[2] == std::vector<std::string>{"a=1", "b=z"});
  CHECK(pts[5] == std::vector<std::string>{"a=2", "b=z"});
  CHECK(value_of(pts[4], "b") == "y");
}

TEST_CASE("sweep: invalid points are reported, valid ones simulated, in parallel", "[advise]") {
  const std::string file = std::string(PLANSIM_SOURCE_DIR) + "/scenarios/antipatterns/good.yaml";
  SweepResult r;
  // dp 16 needs 16 GPUs of the server's 8: invalid; dp 4 runs on 4 of them (README "Any subset of a cluster").
  r.keys = {parse_vary("parallel.dp=16,8,4"), parse_vary("training.micro_batch=4,8")};
  r.points = run_points(file, {}, cartesian(r.keys), 2);
  REQUIRE(r.points.size() == 6);
  CHECK_FALSE(r.points[0].valid);
  CHECK(r.points[0].error.find("16 GPUs, but the topology has 8 GPUs") != std::string::npos);
  CHECK(r.points[2].valid);
  CHECK(r.points[3].valid);
  CHECK(r.points[4].valid);
  CHECK(r.points[4].metrics.world == 4);
  // Half the GPUs, the same per-GPU work: about half the tokens/s.
  CHECK(r.points[4].metrics.tokens_per_s == Approx(r.points[2].metrics.tokens_per_s / 2).epsilon(0.05));
  // Larger micro-batches at the same global batch: fewer accumulation steps, not slower here.
  CHECK(r.points[3].metrics.tokens_per_s > 0);
  const std::string table = sweep_table(r);
  CHECK(table.find("invalid [1]") != std::string::npos);
  CHECK(sweep_csv(r).find("parallel.dp,training.micro_batch,valid,") == 0);
}
