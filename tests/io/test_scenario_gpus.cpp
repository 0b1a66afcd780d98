// A plan on some of the topology's GPUs (README "Any subset of a cluster"): the first tp·cp·ep·dp·pp
// in host-major order, or the scenario's `gpus` list; the report says which ran.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"
#include "tests/support/cluster.hpp"

using namespace plansim;

namespace {
// 4 ranks (tp 2 × dp 2) on a factory cluster of 2 servers × 4 GPUs.
const char* kFour = R"(name: four
topology: unused.yaml
model: {layers: 8, hidden: 1024, heads: 16, vocab: 32000, seq_len: 2048}
parallel: {tp: 2, pp: 1, dp: 2}
training: {global_batch: 16, micro_batch: 2}
)";

LoadedScenario load(const std::string& text, std::vector<std::string> overrides = {}) {
  return parse_scenario(text, "s.yaml", overrides, [](std::optional<int>) { return testing::make_cluster(2, 4); });
}

std::string error_of(const std::string& text, std::vector<std::string> overrides = {}) {
  try {
    load(text, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "<no error>";
}

std::string with_gpus(const std::string& list) { return std::string(kFour) + "gpus: " + list + "\n"; }

const std::string kSeed = std::string(PLANSIM_SOURCE_DIR) + "/scenarios/seed-pipeline-4x16.yaml";
}  // namespace

TEST_CASE("gpus: a plan smaller than the topology runs on its first GPUs, host-major", "[io][scenario][gpus]") {
  const LoadedScenario s = load(kFour);
  REQUIRE(s.topology.num_gpus() == 4);
  CHECK(s.topology.topology_gpus() == 8);
  for (uint32_t g = 0; g < 4; ++g) CHECK(s.topology.topology_gpu(GpuId(g)) == GpuId(g));
  CHECK(s.topology.host_of(GpuId(3)) == 0);  // GPUs 0-3: the first server
  // The whole topology, as before, when the plan uses every GPU.
  const LoadedScenario all = load(kFour, {"parallel.dp=4"});
  CHECK(all.topology.num_gpus() == 8);
  CHECK(all.topology.topology_gpus() == 8);
}

TEST_CASE("gpus: a listed subset maps rank r to the r-th entry", "[io][scenario][gpus]") {
  const LoadedScenario s = load(with_gpus("[6, 7, 4, 5]"));
  REQUIRE(s.topology.num_gpus() == 4);
  CHECK(s.topology.topology_gpu(GpuId(0)) == GpuId(6));
  CHECK(s.topology.topology_gpu(GpuId(2)) == GpuId(4));
  CHECK(s.topology.host_of(GpuId(0)) == 1);  // the second server's GPUs
  // The routes are the whole topology's: plan GPU 0 -> 1 is topology GPU 6 -> 7.
  CHECK(s.topology.gpu_node(GpuId(0)) != s.topology.gpu_node(GpuId(1)));
  // A null list is no list.
  CHECK(load(with_gpus("~")).topology.topology_gpu(GpuId(3)) == GpuId(3));
}

TEST_CASE("gpus: bad lists are errors at file:line:col", "[io][scenario][gpus]") {
  CHECK(error_of(with_gpus("[0, 1, 2, 9]")) == "s.yaml:6:17: GPU 9 is not in the topology (8 GPUs, numbered 0 to 7)");
  CHECK(error_of(with_gpus("[0, 1, 2, 1]")) == "s.yaml:6:17: GPU 1 is listed twice in 'gpus' (entries 2 and 4)");
  CHECK(error_of(with_gpus("[0, 1, 2]")) ==
        "s.yaml:6:7: 'gpus' lists 3 GPUs, but the plan has tp·pp·dp·cp = 4 ranks (one GPU each)");
  CHECK(error_of(with_gpus("3")) == "s.yaml:6:7: 'gpus' must list the GPUs the plan runs on (numbers in the "
                                    "topology's host-major order), e.g. [0, 1, 2, 3]");
  CHECK_THAT(error_of(with_gpus("[0, 1, 2, -1]")), Catch::Contains("s.yaml:6:17: 'gpus' must be an integer from 0"));
  CHECK_THAT(error_of(with_gpus("[0, 1, 2, x]")), Catch::Contains("s.yaml:6:17: 'gpus' must be an integer"));
  // More ranks than GPUs stays an error of the plan.
  CHECK_THAT(error_of(kFour, {"parallel.dp=8"}),
             Catch::Contains("tp·pp·dp·cp = 2·1·8·1 = 16 GPUs, but the topology has 8 GPUs"));
  // From --set, the error names the override.
  CHECK_THAT(error_of(kFour, {"gpus=[0, 0, 1, 2]"}), Catch::Contains("--set gpus=[0, 0, 1, 2]"));
}

TEST_CASE("gpus: a 4-GPU plan runs on one DGX H100 and the report says which GPUs ran", "[io][scenario][gpus]") {
  LoadedScenario s = load_scenario(kSeed, {"parallel.dp=1"});  // pp 4 on dgx-h100 with nodes: 1
  REQUIRE(s.topology.num_gpus() == 4);
  const PlanRun run = simulate_plan(s.scenario, s.topology, SimulateOptions{true, false});
  CHECK(run.report.world == 4);
  CHECK(run.report.topology_gpus == 8);
  CHECK(run.report.gpu_ids == std::vector<uint32_t>{0, 1, 2, 3});
  const auto j = nlohmann::json::parse(report_json(run.report));
  CHECK(j["gpus"] == 4);
  CHECK(j["topology_gpus"] == 8);
  CHECK(j["gpu_ids"] == nlohmann::json::array({0, 1, 2, 3}));
  CHECK_THAT(report_text(run.report), Catch::Contains("GPUs                0-3 of the topology's 8"));
  // The whole server: no GPUs line (nothing to say), gpu_ids 0..7.
  LoadedScenario whole = load_scenario(kSeed);
  const PlanRun all = simulate_plan(whole.scenario, whole.topology, SimulateOptions{true, false});
  CHECK(report_text(all.report).find("of the topology's") == std::string::npos);
  CHECK(nlohmann::json::parse(report_json(all.report))["gpu_ids"].size() == 8);
}

TEST_CASE("gpus: on a symmetric server any 4 GPUs give the same iteration; across servers TP slows", "[gpus][run]") {
  auto iteration = [&](std::vector<std::string> sets) {
    LoadedScenario s = load_scenario(kSeed, sets);
    return simulate_plan(s.scenario, s.topology, SimulateOptions{true, false}).report;
  };
  const Report first = iteration({"parallel.dp=1"});
  const Report last = iteration({"parallel.dp=1", "gpus=[7, 6, 5, 4]"});
  CHECK(last.gpu_ids == std::vector<uint32_t>{7, 6, 5, 4});
  CHECK(last.iteration.seconds() == Approx(first.iteration.seconds()).epsilon(1e-9));
  CHECK_THAT(report_text(last), Catch::Contains("GPUs                7,6,5,4 of the topology's 8"));
  // 2 GPUs: pp 2 alone.
  const Report two = iteration({"parallel.dp=1", "parallel.pp=2"});
  CHECK(two.world == 2);
  CHECK(two.gpu_ids == std::vector<uint32_t>{0, 1});
  // TP 2 inside a server vs across two (GPUs 0 and 8 of nodes: 2): the TP all-reduces cross InfiniBand.
  const std::vector<std::string> tp2{"parallel.tp=2", "parallel.pp=1", "parallel.dp=1", "model.layers=4",
                                     "training.global_batch=4"};
  std::vector<std::string> split = tp2;
  split.insert(split.end(), {"nodes=2", "gpus=[0, 8]"});
  const Report inside = iteration(tp2), across = iteration(split);
  CHECK(across.gpu_ids == std::vector<uint32_t>{0, 8});
  CHECK(across.topology_gpus == 16);
  CHECK(across.exposed_comm_s[static_cast<size_t>(Dim::tp)] > inside.exposed_comm_s[static_cast<size_t>(Dim::tp)]);
  CHECK(across.iteration.seconds() > inside.iteration.seconds());
}
