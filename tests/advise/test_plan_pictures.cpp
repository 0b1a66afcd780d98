// The pictures of a run (advise/plan_pictures.hpp) against the schedules' closed forms and the report's
// own totals: the timeline's boxes are the schedule's slots, the memory bars sum to the stage totals,
// the breakdown's parts to the iteration time. The gnuplot data is checked, not pixels; one test renders.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <sstream>

#include "sim/advise/plan_pictures.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"

using namespace plansim;
using namespace plansim::advise;

namespace {

const std::string kSrc = PLANSIM_SOURCE_DIR;

// seed-pipeline-4x16 cut to 8 micro-batches (global batch 16 over DP 2), the docs' plan.
YAML::Node run_report(std::vector<std::string> sets) {
  sets.insert(sets.begin(), "training.global_batch=16");
  LoadedScenario s = load_scenario(kSrc + "/scenarios/seed-pipeline-4x16.yaml", sets);
  return run_report_node(simulate_plan(s.scenario, s.topology).report);
}

struct Slot {
  char phase;
  int mb, chunk;
  double start, end;
};
// Per stage, the slots in order of start.
std::vector<std::vector<Slot>> slots_by_stage(const YAML::Node& r) {
  std::vector<std::vector<Slot>> out(r["stages"].size());
  for (const auto& s : r["pipeline"]["slots"])
    out.at(s["stage"].as<size_t>())
        .push_back({s["phase"].as<std::string>()[0], s["micro_batch"].as<int>(), s["chunk"].as<int>(),
                    s["start_s"].as<double>(), s["end_s"].as<double>()});
  for (auto& v : out) std::stable_sort(v.begin(), v.end(), [](const Slot& a, const Slot& b) { return a.start < b.start; });
  return out;
}
std::string phases(const std::vector<Slot>& v) {
  std::string s;
  for (const Slot& x : v) s += x.phase;
  return s;
}
std::vector<std::vector<double>> rows(const std::string& block) {
  std::vector<std::vector<double>> out;
  std::istringstream in(block);
  for (std::string line; std::getline(in, line);) {
    std::vector<double>& row = out.emplace_back();
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) row.push_back(c.empty() ? 0 : std::strtod(c.c_str(), nullptr));
  }
  return out;
}
size_t count_lines(const std::string& block) {
  return block.rfind("NaN", 0) == 0 ? 0 : static_cast<size_t>(std::count(block.begin(), block.end(), '\n'));
}

}  // namespace

TEST_CASE("timeline: 1F1B slots are p−s−1 warm-up forwards, then F/B alternating, then the cool-down", "[advise][pictures]") {
  const YAML::Node r = run_report({});
  const int p = 4, m = 8;
  CHECK(r["pipeline"]["schedule"].as<std::string>() == "1f1b");
  const auto by_stage = slots_by_stage(r);
  REQUIRE(by_stage.size() == static_cast<size_t>(p));
  for (size_t s = 0; s < by_stage.size(); ++s) {
    const int warm = p - static_cast<int>(s) - 1;
    std::string want(static_cast<size_t>(warm), 'F');
    for (int i = 0; i < m - warm; ++i) want += "FB";
    want += std::string(static_cast<size_t>(warm), 'B');
    INFO("stage " << s);
    CHECK(phases(by_stage[s]) == want);
    // Micro-batches in order within each phase; stage s's first forward starts after stage s−1's ends.
    int next_f = 0, next_b = 0;
    for (const Slot& x : by_stage[s]) CHECK(x.mb == (x.phase == 'F' ? next_f++ : next_b++));
    if (s > 0) CHECK(by_stage[s][0].start >= by_stage[s - 1][0].end);
  }
  // The picture: one box per slot, F in block 0, B in block 1, no W.
  const PlotSpec spec = plot_timeline(r);
  CHECK(count_lines(spec.blocks[0]) == static_cast<size_t>(p * m));
  CHECK(count_lines(spec.blocks[1]) == static_cast<size_t>(p * m));
  CHECK(count_lines(spec.blocks[2]) == 0);
  // The boxes' extents are the slots' times (ms), stage 0's row on top (y 0..1).
  const auto f = rows(spec.blocks[0]);
  CHECK(f[0][0] == Approx(by_stage[0][0].start * 1e3));
  CHECK(f[0][1] == Approx(by_stage[0][0].end * 1e3));
  CHECK(f[0][2] == 0);
  CHECK(f[0][3] == 1);
  // A PP and a DP lane (PP4 × DP2), the optimizer step on every stage.
  CHECK(spec.plot.find("PP send/recv") != std::string::npos);
  CHECK(spec.plot.find("DP collectives") != std::string::npos);
  CHECK(count_lines(spec.blocks.back()) >= static_cast<size_t>(p));
}

TEST_CASE("timeline: GPipe runs every forward before any backward", "[advise][pictures]") {
  const auto by_stage = slots_by_stage(run_report({"schedule.kind=gpipe"}));
  for (const auto& v : by_stage) CHECK(phases(v) == std::string(8, 'F') + std::string(8, 'B'));
}

TEST_CASE("timeline: zero-bubble schedules have W slots, drawn hatched", "[advise][pictures]") {
  for (const char* kind : {"zb-h1", "zb-h2"}) {
    INFO(kind);
    const YAML::Node r = run_report({std::string("schedule.kind=") + kind});
    for (const auto& v : slots_by_stage(r)) {
      const std::string ph = phases(v);
      CHECK(std::count(ph.begin(), ph.end(), 'F') == 8);
      const auto b = std::count(ph.begin(), ph.end(), 'B'), w = std::count(ph.begin(), ph.end(), 'W');
      CHECK(b == 8);
      CHECK(w > 0);  // a B that is followed by no W computes its weight gradient itself
      CHECK(w <= 8);
      CHECK(ph.find('W') > ph.find('B'));
    }
    const PlotSpec spec = plot_timeline(r);
    CHECK(count_lines(spec.blocks[2]) > 0);
    CHECK(spec.plot.find("pattern") != std::string::npos);
    CHECK(spec.plot.find("W weight gradient") != std::string::npos);
  }
}

TEST_CASE("timeline: interleaved slots name their chunk, labelled with primes", "[advise][pictures]") {
  const YAML::Node r = run_report({"schedule.kind=interleaved", "schedule.virtual_stages=2"});
  CHECK(r["pipeline"]["chunks"].as<int>() == 2);
  for (const auto& v : slots_by_stage(r)) {
    std::map<std::pair<char, int>, int> count;  // (phase, chunk)
    for (const Slot& x : v) ++count[{x.phase, x.chunk}];
    CHECK(count == std::map<std::pair<char, int>, int>{{{'B', 0}, 8}, {{'B', 1}, 8}, {{'F', 0}, 8}, {{'F', 1}, 8}});
    // Megatron's order: the first forwards run chunk 0 for p micro-batches, then chunk 1.
    CHECK(v[0].chunk == 0);
  }
  const PlotSpec spec = plot_timeline(r);
  CHECK((spec.blocks[3] + spec.blocks[4]).find("'\n") != std::string::npos);  // some "n'" label fits
}

TEST_CASE("timeline: DualPipe's paired F&B share a row, F above and B below", "[advise][pictures]") {
  const YAML::Node r = run_report({"schedule.kind=dualpipe"});
  CHECK(r["pipeline"]["chunks"].as<int>() == 2);
  const PlotSpec spec = plot_timeline(r);
  size_t halves = 0;
  for (const auto& row : rows(spec.blocks[0]))
    if (row[3] - row[2] == Approx(0.5)) ++halves;
  CHECK(halves > 0);
  // Both directions: lane 0 (micro-batches 0..3) on chunk 0, lane 1 (4..7) on chunk 1.
  for (const auto& v : slots_by_stage(r))
    for (const Slot& x : v) CHECK(x.chunk == (x.mb >= 4 ? 1 : 0));
}

TEST_CASE("timeline: a plan without pipeline parallelism draws one stage row", "[advise][pictures]") {
  const YAML::Node r = run_report({"parallel.pp=1", "parallel.dp=8"});
  const PlotSpec spec = plot_timeline(r);
  CHECK(spec.plot.find("DATA index 0") != std::string::npos);
  CHECK(spec.setup.find("'stage 0'") != std::string::npos);
  CHECK(spec.setup.find("'stage 1'") == std::string::npos);
  CHECK(count_lines(spec.blocks[0]) == 2);  // 16 sequences over DP 8: two micro-batches
}

TEST_CASE("memory: the stacked parts sum to each stage's total", "[advise][pictures]") {
  const YAML::Node r = run_report({});
  const PlotSpec spec = plot_memory(r);
  const auto table = rows(spec.blocks[0]);
  REQUIRE(table.size() == 4);
  for (size_t s = 0; s < table.size(); ++s) {
    double sum = 0;
    for (size_t c = 1; c <= 5; ++c) sum += table[s][c];
    CHECK(sum == Approx(table[s][6]).epsilon(1e-9));
    CHECK(table[s][6] * 1024 * 1024 * 1024 == Approx(r["stages"][s]["memory"]["total_bytes"].as<double>()));
  }
  CHECK(spec.setup.find("HBM 80 GiB") != std::string::npos);  // H100 80 GB = 80 GiB in the GPU spec
}

TEST_CASE("breakdown: the parts sum to the iteration time", "[advise][pictures]") {
  for (const char* kind : {"1f1b", "zb-h1", "dualpipe"}) {
    INFO(kind);
    const YAML::Node r = run_report({std::string("schedule.kind=") + kind});
    const double t = r["iteration_time_s"].as<double>();
    for (const auto& st : r["stages"]) {
      double sum = 0;
      for (const auto& kv : st["time_breakdown_s"]) sum += kv.second.as<double>();
      CHECK(sum == Approx(t).epsilon(1e-9));
      // Compute is the rank's compute time; the bubble at most the stage's (which also counts an
      // optimizer step run before the flush ends as idle).
      const auto rank = st["rank"].as<size_t>();
      CHECK(st["time_breakdown_s"]["compute"].as<double>() ==
            Approx(r["ranks"][rank]["compute_busy_s"].as<double>()).epsilon(1e-9));
      CHECK(st["time_breakdown_s"]["bubble"].as<double>() <= st["bubble_fraction"].as<double>() * t * (1 + 1e-9) + 1e-12);
      for (const char* d : {"tp", "cp", "ep", "dp", "pp"})
        CHECK(st["time_breakdown_s"][d].as<double>() <= r["ranks"][rank]["exposed_comm_s"][d].as<double>() + 1e-12);
    }
    const PlotSpec spec = plot_breakdown(r);
    for (const auto& row : rows(spec.blocks[0])) {
      double sum = 0;
      for (size_t c = 1; c < row.size(); ++c) sum += row[c];
      CHECK(sum == Approx(t * 1e3).epsilon(1e-9));  // milliseconds
    }
    CHECK(spec.ylabel == "time (ms)");
  }
}

TEST_CASE("breakdown: a report written before the offload part still plots, its offload read as 0",
          "[advise][pictures]") {
  const YAML::Node r = run_report({});
  const std::vector<std::string> before = plot_breakdown(r).blocks;
  for (auto st : r["stages"]) st["time_breakdown_s"].remove("offload");
  CHECK(plot_breakdown(r).blocks == before);
  for (auto st : r["stages"]) st["time_breakdown_s"].remove("bubble");  // the older parts stay required
  CHECK_THROWS_AS(plot_breakdown(r), ConfigError);
}

TEST_CASE("pictures: a report without what a picture needs is a ConfigError", "[advise][pictures]") {
  const YAML::Node bare = YAML::Load("{name: x, iteration_time_s: 1, stages: [{stage: 0, rank: 0}]}");
  CHECK_THROWS_AS(plot_timeline(bare), ConfigError);
  CHECK_THROWS_AS(plot_memory(bare), ConfigError);
  CHECK_THROWS_AS(plot_breakdown(bare), ConfigError);
  CHECK_THROWS_AS(plot_timeline(YAML::Load("[1, 2]")), ConfigError);
  try {
    plot_memory(bare);
  } catch (const ConfigError& e) {
    CHECK(e.pos().file == "run report");
    CHECK(std::string(e.what()).find("hbm_capacity_bytes") != std::string::npos);
  }
  CHECK(plan_picture_named("timeline") == PlanPicture::timeline);
  CHECK_FALSE(plan_picture_named("pie").has_value());
}

TEST_CASE("pictures: every picture renders through gnuplot", "[advise][pictures]") {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {  // Catch2 v2 has no SKIP
    WARN("gnuplot is not installed: the rendering is not checked");
    return;
  }
  const YAML::Node r = run_report({"schedule.kind=zb-h1"});
  for (PlanPicture pic : {PlanPicture::timeline, PlanPicture::memory, PlanPicture::breakdown}) {
    const std::string svg = plan_picture_svg(pic, r);
    CHECK(svg.find("<svg") != std::string::npos);
    CHECK(svg.find("<path") != std::string::npos);
    CHECK(svg.find("</svg>") != std::string::npos);
  }
}
