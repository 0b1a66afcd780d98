// fit_latency_bandwidth: recovers known α and B from synthetic nccl-tests-like sweeps, with noise and outliers.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "sim/calib/linear_fit.hpp"

using plansim::calib::FitPoint;
using plansim::calib::fit_latency_bandwidth;

namespace {

// t(S) = α + S·f/B for S = 8 B .. 8 GiB (×2), with multiplicative noise of relative standard deviation `noise`.
std::vector<FitPoint> sweep(double alpha, double bw, double factor, double noise, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n(0.0, noise);
  std::vector<FitPoint> p;
  for (double s = 8; s <= 8.0 * (1ull << 30); s *= 2) {
    const double x = s * factor;
    p.push_back({x, (alpha + x / bw) * (1.0 + n(rng))});
  }
  return p;
}

}  // namespace

TEST_CASE("exact data gives back the parameters", "[calib]") {
  // 8-rank all-reduce: factor 2·7/8 = 1.75; α = 25 us, B = 180 GB/s.
  const auto p = sweep(25e-6, 180e9, 1.75, 0.0, 1);
  const auto f = fit_latency_bandwidth(p);
  CHECK(f.a == Approx(25e-6).epsilon(1e-9));
  CHECK(1.0 / f.b == Approx(180e9).epsilon(1e-9));
  CHECK(f.points == static_cast<int>(p.size()));
  CHECK(f.max_abs_rel_residual < 1e-9);
}

TEST_CASE("3 % noise: α within 5 %, B within 3 %, over several seeds", "[calib]") {
  for (unsigned seed = 1; seed <= 10; ++seed) {
    CAPTURE(seed);
    const auto f = fit_latency_bandwidth(sweep(25e-6, 180e9, 1.75, 0.03, seed));
    CHECK(f.a == Approx(25e-6).epsilon(0.05));
    CHECK(1.0 / f.b == Approx(180e9).epsilon(0.03));
    CHECK(f.median_abs_rel_residual < 0.05);
  }
}

TEST_CASE("outliers (a few points 3x slow) barely move the robust fit", "[calib]") {
  auto p = sweep(10e-6, 45e9, 1.0, 0.01, 7);
  p[3].t *= 3;   // a latency point
  p[20].t *= 3;  // a mid-size point
  p[29].t *= 3;  // a bandwidth point
  const auto f = fit_latency_bandwidth(p);
  CHECK(f.a == Approx(10e-6).epsilon(0.05));
  CHECK(1.0 / f.b == Approx(45e9).epsilon(0.03));
  CHECK(f.max_abs_rel_residual > 0.6);  // (3m - m) / 3m: the outliers stay visible in the residuals
}

TEST_CASE("relative weighting: plain least squares would lose the latency, this fit does not", "[calib]") {
  // Large-size points dominate absolute residuals; α = 5 us is below any large-size noise.
  const auto f = fit_latency_bandwidth(sweep(5e-6, 400e9, 0.875, 0.02, 3));
  CHECK(f.a == Approx(5e-6).epsilon(0.05));
}

TEST_CASE("a negative intercept is clamped to zero latency", "[calib]") {
  std::vector<FitPoint> p = {{1e6, 0.9e-5}, {2e6, 2e-5}, {4e6, 4.1e-5}};
  const auto f = fit_latency_bandwidth(p);
  CHECK(f.a == 0.0);
  CHECK(f.b > 0);
}

TEST_CASE("unfittable inputs are rejected", "[calib]") {
  std::vector<FitPoint> one = {{1e6, 1e-3}};
  CHECK_THROWS_AS(fit_latency_bandwidth(one), std::invalid_argument);
  std::vector<FitPoint> same_size = {{1e6, 1e-3}, {1e6, 2e-3}};
  CHECK_THROWS_AS(fit_latency_bandwidth(same_size), std::invalid_argument);
  std::vector<FitPoint> shrinking = {{1e3, 1e-3}, {1e6, 1e-4}, {1e9, 1e-5}};
  CHECK_THROWS_AS(fit_latency_bandwidth(shrinking), std::invalid_argument);
  std::vector<FitPoint> zero_time = {{1e3, 0.0}, {1e6, 1e-4}};
  CHECK_THROWS_AS(fit_latency_bandwidth(zero_time), std::invalid_argument);
}
