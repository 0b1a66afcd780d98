// Golden reports: small scenarios from scenarios/ simulated end to end and compared with
// tests/golden/<name>.json (top-level figures, relative tolerance 1e-3). Regenerate after an
// intended model change with:  PLANSIM_UPDATE_GOLDEN=1 build/tests/plansim_tests "[golden]"
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"

using namespace plansim;

namespace {
const char* kKeys[] = {"iteration_time_s", "tokens_per_s", "tflops_per_gpu", "mfu", "hfu", "bubble_fraction",
                       "bubble_overhead", "overlap_fraction", "memory_peak_bytes"};

void check_golden(const std::string& name) {
  const std::string src = PLANSIM_SOURCE_DIR;
  LoadedScenario s = load_scenario(src + "/scenarios/" + name + ".yaml");
  PlanRun run = simulate_plan(s.scenario, s.topology);
  nlohmann::json got = nlohmann::json::parse(report_json(run.report));
  const std::string path = src + "/tests/golden/" + name + ".json";
  nlohmann::json keep;
  for (const char* k : kKeys) keep[k] = got[k];
  keep["exposed_comm_s"] = got["exposed_comm_s"];
  keep["oom"] = got["oom"];
  if (const char* u = std::getenv("PLANSIM_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::ofstream(path) << keep.dump(2) << "\n";
    WARN("rewrote " << path);
    return;
  }
  std::ifstream in(path);
  REQUIRE(in.good());
  nlohmann::json want = nlohmann::json::parse(in);
  INFO(name);
  for (const char* k : kKeys) {
    INFO(k);
    CHECK(got[k].get<double>() == Approx(want[k].get<double>()).epsilon(1e-3).margin(1e-12));
  }
  for (const auto& [dim, v] : want["exposed_comm_s"].items()) {
    INFO("exposed " << dim);
    CHECK(got["exposed_comm_s"][dim].get<double>() == Approx(v.get<double>()).epsilon(1e-3).margin(1e-9));
  }
  CHECK(got["oom"] == want["oom"]);
}
}  // namespace

TEST_CASE("golden: seed pipeline 4 stages x 16 micro-batches", "[golden]") { check_golden("seed-pipeline-4x16"); }
TEST_CASE("golden: seed pipeline 16 stages x 4 micro-batches", "[golden]") { check_golden("seed-pipeline-16x4"); }
TEST_CASE("golden: seed DDP 70B over InfiniBand", "[golden]") { check_golden("seed-dp-70b-ib"); }
TEST_CASE("golden: seed TP8 inside servers", "[golden]") { check_golden("seed-tp8-nvlink"); }
TEST_CASE("golden: seed TP8 across servers over Ethernet", "[golden]") { check_golden("seed-tp8-ethernet"); }

TEST_CASE("seed scenarios reproduce the notes' qualitative claims", "[golden][seed]") {
  const std::string src = PLANSIM_SOURCE_DIR;
  auto run = [&](const std::string& name, const std::vector<std::string>& sets = {}) {
    LoadedScenario s = load_scenario(src + "/scenarios/" + name + ".yaml", sets);
    return simulate_plan(s.scenario, s.topology).report;
  };
  // TP across servers over Ethernet: GPUs wait most of the time; inside a server far less.
  Report eth = run("seed-tp8-ethernet"), nvl = run("seed-tp8-nvlink");
  CHECK(eth.exposed_comm_s[static_cast<size_t>(Dim::tp)] / eth.iteration.seconds() > 0.6);
  CHECK(nvl.iteration.seconds() * 4 < eth.iteration.seconds());
  // 16 stages x 4 micro-batches: the bubble overhead is at least the ideal 375 %; 4 x 16 at least 18.75 %.
  CHECK(run("seed-pipeline-16x4").bubble_overhead >= 3.75);
  CHECK(run("seed-pipeline-4x16").bubble_overhead >= 0.1875);
  // DDP 70B over 50 GB/s: ring all-reduce of 140 GB moves 2·7/8·140 GB per GPU = 4.9 s at 50 GB/s;
  // NCCL overheads put the exposed time between that and the notes' 2·140/50 = 5.6 s (+10 %).
  Report dp = run("seed-dp-70b-ib");
  CHECK(dp.exposed_comm_s[static_cast<size_t>(Dim::dp)] > 4.9);
  CHECK(dp.exposed_comm_s[static_cast<size_t>(Dim::dp)] < 5.6 * 1.1);
  CHECK(dp.oom);
  // Global batch 64 on 128 GPUs (one sequence per DP rank). The notes' "efficiency < 20 %" is what a
  // cloud fabric gives: on the RoCE cluster (200 Gb/s per GPU, 2:1, ECMP hashing) MFU stays below 20 %
  // with DP communication most of the iteration. DGX H100's non-blocking NDR InfiniBand (destination
  // routing, 400 Gb/s per GPU) hides more, but the small batch still costs over a seventh of the MFU
  // the same plan reaches with 16 sequences per DP rank (simulated with the shipped H100 profile:
  // 34.1 % vs 41.4 %; 32.9 % vs 41.2 % before NCCL's multi-server ring latency (plateau factor 1.4,
  // one round, hop latencies summed) cut the DP all-reduce's exposed time; before calibration profiles,
  // with compute at the raw MAMF, 36.6 % vs 56.1 %).
  Report small = run("seed-small-batch", {"topology=../topologies/ethernet-h100.yaml"});
  CHECK(small.mfu < 0.2);
  CHECK(small.exposed_comm_s[static_cast<size_t>(Dim::dp)] / small.iteration.seconds() > 0.5);
  Report small_ib = run("seed-small-batch"), big_ib = run("seed-small-batch", {"training.global_batch=1024"});
  CHECK(small_ib.mfu < 0.85 * big_ib.mfu);
}

namespace {
// Every figure of two report JSONs agrees to 1e-12 (means summed in another order may differ in the
// last bits), apart from the notes and `symmetry` (what the run did), which rank a folded rank's
// figures come from, and the op list (a folded report lists the executed ranks' ops only).
void check_same_report(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  INFO(path);
  if (a.is_object()) {
    REQUIRE(b.is_object());
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (it.key() == "notes" || it.key() == "executed_as" || it.key() == "ops" || it.key() == "symmetry") continue;
      REQUIRE(b.contains(it.key()));
      check_same_report(it.value(), b[it.key()], path + "." + it.key());
    }
  } else if (a.is_array()) {
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) check_same_report(a[i], b[i], path + "[" + std::to_string(i) + "]");
  } else if (a.is_number_float()) {
    CHECK(a.get<double>() == Approx(b.get<double>()).epsilon(1e-12).margin(1e-15));
  } else {
    CHECK(a == b);
  }
}
}  // namespace

TEST_CASE("symmetry shortcuts reproduce the full simulation exactly", "[golden][symmetry]") {
  // TP folding (kept only when the siblings stayed in lockstep) and the TP memo (where TP links are
  // private) against executing every rank with every collective on the flow network: the same
  // report, rank by rank. seed-tp8-nvlink's DP rings cross an Ethernet fabric with ECMP hashing, so
  // the TP siblings' routes differ: folding is abandoned there and the notes say why.
  // The 405B plan on 512 GPUs of the Llama 3 cluster (DP 4 instead of 128) stands for the benchmark
  // run, whose folding is checked the same way at every transfer.
  const std::string src = PLANSIM_SOURCE_DIR;
  const std::map<std::string, std::vector<std::string>> sets = {
      {"llama3-405b-16k-h100", {"parallel.dp=4", "training.global_batch=64", "nodes=64"}}};
  for (const char* name : {"seed-tp8-nvlink", "seed-tp8-ethernet", "seed-small-batch", "llama3-70b-64-h100",
                           "llama3-405b-16k-h100"}) {
    const auto it = sets.find(name);
    LoadedScenario s = load_scenario(src + "/scenarios/" + name + ".yaml", it == sets.end() ? std::vector<std::string>{} : it->second);
    PlanRun fast = simulate_plan(s.scenario, s.topology, SimulateOptions{true, true, false});  // TP shortcuts only
    PlanRun full = simulate_plan(s.scenario, s.topology, SimulateOptions{false});
    INFO(name << ": " << fast.report.notes);
    const bool abandoned = std::string(name) == "seed-tp8-nvlink";
    CHECK((fast.report.notes.find("TP folding is not exact here") != std::string::npos) == abandoned);
    CHECK(fast.report.symmetry.tp_folding == (abandoned ? "abandoned" : "exact"));
    CHECK(fast.report.symmetry.executed_ranks == fast.plan.programs.size());
    CHECK(full.report.symmetry.tp_folding == "off");
    CHECK(full.report.symmetry.tp_planes == "off");
    // Network planes: one simulated where the siblings' links are disjoint renamings (needs the TP
    // memo); every copy on the network where TP crosses servers (seed-tp8-ethernet, no memo, 2 planes
    // would share the Ethernet links TP uses) or in seed-small-batch (TP 2 over PCIe pairs, no memo).
    const std::string want_planes = abandoned ? "off"
                                     : std::string(name) == "seed-tp8-ethernet" || std::string(name) == "seed-small-batch"
                                         ? "shared"
                                         : "isomorphic";
    CHECK(fast.report.symmetry.tp_planes == want_planes);
    CHECK_FALSE(full.report.symmetry.tp_memo);
    if (abandoned) CHECK(fast.plan.programs.size() == full.plan.programs.size());
    else CHECK(fast.plan.programs.size() * static_cast<size_t>(s.scenario.parallel.tp) == full.plan.programs.size());
    check_same_report(nlohmann::json::parse(report_json(fast.report)), nlohmann::json::parse(report_json(full.report)), name);
  }
}
