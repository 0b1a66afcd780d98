// Validation runner (tagged [bench], so CTest skips it): BLOOM-176B's production configuration on
// Jean Zay, scenarios/bloom-176b-384-a100.yaml, against the published iteration time and hardware
// TFLOP/s per GPU. Run: build/tests/plansim_tests "[validate][bloom]". No calibration of its own: the
// A100 calibration of validate/megatron is reused unchanged (one per GPU type).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <iostream>

#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"

using namespace plansim;

TEST_CASE("validate: BLOOM-176B production (384 A100, TP4 PP12 DP8, ZeRO-1)", "[bench][validate][bloom]") {
  // Published (bigscience tr11-176B-ml README, iteration 85,376, GBS 2048).
  constexpr double kPublishedSeconds = 104.70;
  constexpr double kPublishedTflops = 149.77;
  LoadedScenario s = load_scenario(std::string(PLANSIM_SOURCE_DIR) + "/scenarios/bloom-176b-384-a100.yaml");
  PlanRun run = simulate_plan(s.scenario, s.topology);
  const double secs = run.report.iteration.seconds();
  const double tflops = run.report.hw_tflops_per_gpu;
  std::cout << fmt::format("{:<34} {:>10} {:>10} {:>8}\n", "BLOOM-176B, 384 A100", "published", "predicted", "error")
            << fmt::format("{:<34} {:>10.2f} {:>10.2f} {:>+7.1f}%\n", "iteration time (s)", kPublishedSeconds, secs,
                           100 * (secs - kPublishedSeconds) / kPublishedSeconds)
            << fmt::format("{:<34} {:>10.2f} {:>10.2f} {:>+7.1f}%\n", "hardware TFLOP/s per GPU", kPublishedTflops, tflops,
                           100 * (tflops - kPublishedTflops) / kPublishedTflops)
            << fmt::format("(simulated in {:.1f} s wall)\n", run.wall_seconds);
  CHECK(std::isfinite(secs));
  CHECK_FALSE(run.report.oom);  // 80 GB A100s held it in production
}
