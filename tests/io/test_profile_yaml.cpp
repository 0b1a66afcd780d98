// Calibration profiles: the format, the layers a scenario runs with (shipped < topology < scenario or
// --calibration < the scenario's own compute: keys), and the round trip fit -> profile -> run.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "sim/calib/run_report.hpp"
#include "sim/coll/nccl_model.hpp"
#include "sim/core/error.hpp"
#include "sim/io/profile_yaml.hpp"
#include "sim/io/scenario_loader.hpp"

using namespace plansim;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

// A scratch folder per test case.
std::filesystem::path scratch(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("plansim-profile-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

const char* kProfile = R"(plansim_profile: 1
name: test-gpu
applies_to: [RTX-4090]
stack: "test"
source: {summary: "made up for a test", data: ["nowhere"]}
compute: {attention_efficiency: 0.4, hbm_efficiency: 0.7}
collectives: {efficiency: {pcie: 0.5}, extra_latency: 3 us}
fit: {anything: [goes, here]}
)";

// An 8-GPU PCIe box written inline, so the test needs no topology file; `extra` adds topology keys.
std::string scenario(const std::string& top_extra, const std::string& extra) {
  return fmt::format(R"(name: s
topology:
  name: box
  nodes: 1
  node: {{gpu: RTX-4090, gpus: 8, pcie: {{generation: 4, lanes: 16, gpus_per_switch: 2, cpus: 1, latency: 0.5 us}}}}
{}
model: {{layers: 4, hidden: 1024, heads: 16, vocab: 32000, seq_len: 1024}}
parallel: {{tp: 1, pp: 1, dp: 8}}
training: {{global_batch: 8, micro_batch: 1}}
{}
)",
                     top_extra, extra);
}

}  // namespace

TEST_CASE("profile: a valid profile reads every section", "[io][profile]") {
  const CalibrationProfile p = io::parse_profile(kProfile, "p.yaml");
  CHECK(p.name == "test-gpu");
  CHECK(p.file == "p.yaml");
  CHECK(p.source == "made up for a test");
  CHECK(p.applies_to_gpu("RTX-4090"));
  CHECK_FALSE(p.applies_to_gpu("H100-SXM-80GB"));
  CHECK(*p.compute.attention_efficiency == 0.4);
  CHECK_FALSE(p.compute.matmul_tflops);
  REQUIRE(p.collectives);
  CHECK(p.collectives->pcie_efficiency == 0.5);
  CHECK(p.collectives->device_latency_us == Approx(3));  // format 1's extra_latency, charged as before
  CHECK(p.collectives->launch_overhead_us == 0);
}

TEST_CASE("profile: errors point at file:line:col", "[io][profile]") {
  CHECK(error_of([] { io::parse_profile("name: x\nsource: y\n", "p.yaml"); }) ==
        "p.yaml:1:1: a calibration profile is missing the required key 'plansim_profile'");
  CHECK_THAT(error_of([] { io::parse_profile("plansim_profile: 3\nname: x\nsource: y\n", "p.yaml"); }),
             Catch::StartsWith("p.yaml:1:18: profile format 3 is newer"));
  // Format 2 split extra_latency: the old key is refused with the migration, at its line.
  CHECK_THAT(error_of([] { io::parse_profile("plansim_profile: 2\nname: x\nsource: y\ncollectives:\n  extra_latency: 5 us\n",
                                             "p.yaml"); }),
             Catch::StartsWith("p.yaml:5:18: 'extra_latency' was split in plansim_profile 2") &&
                 Catch::Contains("device_latency") && Catch::Contains("launch_overhead"));
  CHECK_THAT(error_of([] { io::parse_profile("plansim_profile: 2\nname: x\nsource: y\ncollectives: {simple_slices_per_chunk: 0}\n",
                                             "p.yaml"); }),
             Catch::StartsWith("p.yaml:4:") && Catch::Contains("simple_slices_per_chunk"));
  CHECK_THAT(error_of([] { io::parse_profile("plansim_profile: 2\nname: x\nsource: y\ncollectives: {launch_overhead: -1 us}\n",
                                             "p.yaml"); }),
             Catch::StartsWith("p.yaml:4:") && Catch::Contains("launch_overhead"));
  CHECK_THAT(error_of([] { io::parse_profile("plansim_profile: 1\nname: x\nsource: y\ncompute: {atention_efficiency: 1}\n",
                                             "p.yaml"); }),
             Catch::StartsWith("p.yaml:4:11:") && Catch::Contains("attention_efficiency"));
  CHECK_THAT(error_of([] { io::parse_profile("plansim_profile: 1\nname: x\nsource: y\ncollectives: {channels: 0}\n",
                                             "p.yaml"); }),
             Catch::StartsWith("p.yaml:4:"));
  CHECK_THAT(error_of([] { io::parse_profile("plansim_profile: 2\nname: x\nsource: y\ncompute: {expert_launch_overhead: -3 us}\n",
                                             "p.yaml"); }),
             Catch::StartsWith("p.yaml:4:") && Catch::Contains("expert_launch_overhead"));
  const CalibrationProfile host = io::parse_profile("plansim_profile: 2\nname: x\nsource: y\ncompute: {expert_launch_overhead: 18.5 us}\n",
                                         "p.yaml");
  CHECK(host.compute.expert_launch_overhead->seconds() == Approx(18.5e-6));
}

TEST_CASE("profile: layers apply shipped < topology < scenario < compute: keys, and the report lists them",
          "[io][profile]") {
  const auto dir = scratch("layers");
  write(dir / "topo.yaml", std::string(kProfile));
  write(dir / "mine.yaml", "plansim_profile: 1\nname: mine\nsource: me\ncompute: {attention_efficiency: 0.3}\n");
  write(dir / "s.yaml", scenario("  calibration: topo.yaml", "calibration: mine.yaml\ncompute: {hbm_efficiency: 0.6}"));
  const LoadedScenario l = load_scenario(dir / "s.yaml");
  const auto& cal = l.scenario.calibration;
  REQUIRE(cal.layers.size() == 2);  // no profile ships for RTX-4090
  CHECK(cal.layers[0].origin == "topology");
  CHECK(cal.layers[0].name == "test-gpu");
  CHECK(cal.layers[1].origin == "scenario");
  CHECK(*l.scenario.compute.attention_efficiency == 0.3);  // the scenario's profile over the topology's
  CHECK(*l.scenario.compute.hbm_efficiency == 0.6);         // the scenario's own key over both
  REQUIRE(cal.collectives);                                  // only the topology's profile has collectives
  CHECK(cal.collectives->pcie_efficiency == 0.5);

  SECTION("--calibration replaces the scenario's profile and says it came from the command line") {
    const LoadedScenario c = load_scenario(dir / "s.yaml", {"calibration=" + (dir / "topo.yaml").string()});
    CHECK(c.scenario.calibration.layers.back().origin == "command line");
    CHECK(*c.scenario.compute.attention_efficiency == 0.4);
  }
  SECTION("calibration: none uses no profile at all") {
    const LoadedScenario c = load_scenario(dir / "s.yaml", {"calibration=none"});
    CHECK(c.scenario.calibration.layers.empty());
    CHECK_FALSE(c.scenario.calibration.collectives);
    CHECK_FALSE(c.scenario.compute.attention_efficiency);
    CHECK(*c.scenario.compute.hbm_efficiency == 0.6);
  }
  SECTION("a profile for another GPU is refused where it is named") {
    write(dir / "h100.yaml", "plansim_profile: 1\nname: h\napplies_to: [H100-SXM]\nsource: me\n");
    CHECK_THAT(error_of([&] { load_scenario(dir / "s.yaml", {"calibration=h100.yaml"}); }),
               Catch::Contains("applies to H100-SXM, but this topology's GPU is RTX-4090"));
  }
  SECTION("a profile fitted on the built-in compute model (base: none) drops the compute below it, not the collectives") {
    write(dir / "fitted.yaml", "plansim_profile: 1\nname: f\nbase: none\nsource: me\ncompute: {hbm_efficiency: 0.5}\n");
    const LoadedScenario c = load_scenario(dir / "s.yaml", {"calibration=fitted.yaml"});
    REQUIRE(c.scenario.calibration.layers.size() == 2);      // the topology's (its collectives) and the fitted one
    CHECK(c.scenario.calibration.layers[0].origin == "topology");
    CHECK(c.scenario.calibration.layers[1].name == "f");
    CHECK_FALSE(c.scenario.compute.attention_efficiency);    // the topology's compute key is gone
    REQUIRE(c.scenario.calibration.collectives);             // its collectives are the system's: they stay
    CHECK(*c.scenario.compute.hbm_efficiency == 0.6);        // the scenario's own keys still apply last
  }
  SECTION("'defaults': the built-in compute model with the topology's collectives, the conditions of calibrate --runs") {
    const LoadedScenario d = load_scenario(dir / "s.yaml", {"calibration=defaults"});
    REQUIRE(d.scenario.calibration.layers.size() == 1);
    CHECK(d.scenario.calibration.layers[0].origin == "topology");
    CHECK_FALSE(d.scenario.compute.attention_efficiency);
    CHECK(d.scenario.calibration.collectives);
    CHECK(*d.scenario.compute.hbm_efficiency == 0.6);
    const LoadedScenario n = load_scenario(dir / "s.yaml", {"calibration=none"});
    CHECK(n.scenario.calibration.layers.empty());
    CHECK_FALSE(n.scenario.calibration.collectives);
  }
  SECTION("a missing profile file") {
    CHECK_THAT(error_of([&] { load_scenario(dir / "s.yaml", {"calibration=nope.yaml"}); }),
               Catch::Contains("calibration profile") && Catch::Contains("does not exist"));
  }
}

TEST_CASE("profile: the shipped profiles parse, cite a source, and never claim the same GPU twice",
          "[io][profile]") {
  const auto& shipped = io::shipped_profiles();
  for (size_t i = 0; i < shipped.size(); ++i) {
    CAPTURE(shipped[i].file);
    CHECK_FALSE(shipped[i].source.empty());
    CHECK_FALSE(shipped[i].applies_to.empty());
    for (size_t j = i + 1; j < shipped.size(); ++j)
      for (const auto& a : shipped[i].applies_to) CHECK_FALSE(shipped[j].applies_to_gpu(a));
  }
}

TEST_CASE("profile: what a run fit writes reads back with the fitted values", "[io][profile][calib]") {
  calib::RunSet set;
  set.file = "runs.yaml";
  set.gpu = "RTX-4090";
  for (int i = 0; i < 2; ++i) {
    calib::MeasuredRun r;
    r.name = fmt::format("r{}", i);
    r.dataset = "d";
    r.source = "a \"quoted\" source";
    r.metric = calib::RunMetric::iteration_time_s;
    r.value = 1.0 + i;
    set.runs.push_back(r);
  }
  calib::RunFit fit;
  fit.values = {0.8125, 0.5};
  fit.at_bound = {false, false};
  fit.predicted_s = {1.01, 1.98};
  fit.loo_predicted_s = {1.02, 1.97};
  const std::string y = calib::fitted_profile_yaml(
      set, {{"attention_efficiency", 0.05, 1, 0.5}, {"hbm_efficiency", 0.2, 1, 0.8}}, fit,
      {"fitted", "stack", "plansim calibrate --runs runs.yaml", {"RTX-4090"}, {{"comm_slowdown", "0.2"}}});
  const CalibrationProfile p = io::parse_profile(y, "fitted.yaml");
  CHECK(p.name == "fitted");
  CHECK(*p.compute.attention_efficiency == 0.8125);
  CHECK(*p.compute.hbm_efficiency == 0.5);
  CHECK(*p.compute.comm_slowdown == 0.2);
  CHECK(p.applies_to_gpu("RTX-4090"));
}
