// Time (int64 picoseconds) checks every conversion and operation: past ~9.2e6 s is a ConfigError
// (exit 2: an input made the run impossibly long), never signed overflow (undefined behaviour).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

using namespace plansim;

TEST_CASE("time: conversions beyond the range throw instead of wrapping", "[core][limits]") {
  CHECK(Time::s(9e6).seconds() == Approx(9e6));
  CHECK(Time::s(-9e6).seconds() == Approx(-9e6));
  CHECK_THROWS_AS(Time::s(9.3e6), ConfigError);
  CHECK_THROWS_AS(Time::s(-9.3e6), ConfigError);
  CHECK_THROWS_AS(Time::s(std::numeric_limits<double>::quiet_NaN()), ConfigError);
  CHECK_THROWS_AS(Time::s(std::numeric_limits<double>::infinity()), ConfigError);
  CHECK_THROWS_AS(transfer_time(GB(1), Rate(1e-4)), ConfigError);  // 1e13 s
  CHECK(transfer_time(GB(1), Rate(0)).is_infinite());               // a zero rate is the sentinel
  CHECK_THROWS_AS(compute_time(Flops(1e30), FlopRate(1)), ConfigError);
}

TEST_CASE("time: sums, differences and multiples are overflow-checked", "[core][limits]") {
  const Time big = Time::s(9e6);
  CHECK_THROWS_AS(big + big, ConfigError);
  CHECK_THROWS_AS(Time::zero() - big - big, ConfigError);
  CHECK_THROWS_AS(big * int64_t{2}, ConfigError);
  CHECK_THROWS_AS(Time::infinite() + Time::ps(1), ConfigError);
  Time t = Time::s(4e6);
  t += Time::s(4e6);
  CHECK(t.seconds() == Approx(8e6));
  CHECK_THROWS_AS(t += Time::s(4e6), ConfigError);
  CHECK((Time::us(1.5) * int64_t{4}).micros() == Approx(6.0));
  try {
    (void)(big + big);
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("the range of the simulated clock") != std::string::npos);
  }
}
