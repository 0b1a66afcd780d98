// Benchmarks of `plansim run` at scale (tagged [bench]; CTest skips them):
//   build/tests/plansim_tests "[bench][plans]"
// Prints the wall time, the peak RSS (VmHWM) and the predicted iteration for each scenario.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <string>

#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"

using namespace plansim;

namespace {
double peak_rss_gib() {
  std::ifstream in("/proc/self/status");
  std::string key;
  while (in >> key) {
    if (key == "VmHWM:") {
      double kb = 0;
      in >> kb;
      return kb / (1024.0 * 1024.0);
    }
    std::getline(in, key);
  }
  return 0;
}

void bench(const std::string& name) {
  LoadedScenario s = load_scenario(std::string(PLANSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
  PlanRun run = simulate_plan(s.scenario, s.topology);
  std::cout << fmt::format("{}: {} GPUs, iteration {:.3f} s, MFU {:.1f} %, wall {:.2f} s, peak RSS {:.2f} GiB\n  {}\n", name,
                           run.plan.world, run.report.iteration.seconds(), 100 * run.report.mfu, run.wall_seconds,
                           peak_rss_gib(), run.report.notes)
            << std::flush;
  CHECK(run.report.iteration > Time::zero());
}
}  // namespace

TEST_CASE("bench: Llama 3 70B on 64 H100", "[bench][plans]") { bench("llama3-70b-64-h100"); }
TEST_CASE("bench: GPT-3 175B on 1024 A100", "[bench][plans]") { bench("gpt3-175b-1024-a100"); }
TEST_CASE("bench: Llama 3 405B on 16384 H100", "[bench][plans]") { bench("llama3-405b-16k-h100"); }
