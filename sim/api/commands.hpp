#pragma once
// The CLI's subcommands as library calls: sim/app/cmd_*.cpp parse flags and write files, the Python
// module (python/plansim_module.cpp) converts arguments and results; both call these, so a subcommand
// and its Python function compute the same thing. Each returns what the subcommand prints (`text`) and
// its --json document (`json`, "" where the subcommand has none); bad input throws ConfigError.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/advise/lint.hpp"
#include "sim/advise/search.hpp"
#include "sim/advise/sweep.hpp"
#include "sim/report/simulate_plan.hpp"

namespace plansim::api {

struct CommandResult {
  int status = 0;                     // the subcommand's exit code when it succeeds (0, or 1: findings)
  std::string text;                   // what it prints on stdout
  std::string json;                   // its --json document
  std::vector<std::string> messages;  // what it prints on stderr (one line each)
};

// `plansim run`: the scenario file with `sets` (key.path=value, calibration=FILE included) simulated.
struct RunRequest {
  std::string scenario;
  std::vector<std::string> sets;
  bool symmetry = true;   // false: --no-symmetry
  bool ops = false;       // fill Report::ops (the JSON's per-op array)
};
// `before`: called with the loaded scenario before the simulation (the CLI checks --trace-ranks there).
PlanRun run(const RunRequest& r, const std::function<void(const Scenario&)>& before = {});

// `plansim sweep`: every point of the product of `vary` ("key=v1,v2,..."); `jobs` 0 = hardware threads.
// `shard` "K/N" runs shard K of N ("" = every point); `out` is a results file appended to and resumed
// from (JSON lines; "" = none): advise/sweep.hpp run_sweep.
advise::SweepResult sweep(const std::string& scenario, const std::vector<std::string>& vary,
                          const std::vector<std::string>& sets, int jobs, const advise::ProgressFn& progress = {},
                          const std::string& shard = "", const std::string& out = "");

// `plansim search`: `only` entries read "key=v1,v2,..."; `jobs` 0 = hardware threads.
struct SearchRequest {
  std::string scenario;
  std::vector<std::string> sets;
  int gpus = 0;
  int top = 10;
  int jobs = 0;
  size_t max_plans = 0;
  std::vector<std::string> only;
  bool prune = true;   // false: --no-prune (simulate every plan that fits)
  std::string shard;   // "K/N": shard K of N (advise::parse_shard); "" = everything
  std::string out;     // results file appended to and resumed from (JSON lines); "" = none
};
advise::SearchResult search(const SearchRequest& r, const advise::ProgressFn& progress = {});

// `plansim lint`: `thresholds` entries read "name=value"; `jobs` 0 = hardware threads.
advise::LintResult lint(const std::string& scenario, const std::vector<std::string>& sets,
                        const std::vector<std::string>& thresholds, int jobs);

// `plansim topo`: the description (text and JSON) and the Graphviz drawing (--dot).
CommandResult topo(const std::string& file, std::optional<int> nodes);
std::string topo_dot(const std::string& file, std::optional<int> nodes);

// `plansim collective`: an nccl-tests sweep (sizes -b .. -e by ×f), or with `compare` a published table.
struct CollectiveRequest {
  std::string topology;
  std::optional<int> nodes;
  std::string op = "all_reduce";
  int gpus = 0;  // 0: every GPU
  std::string algo = "auto";
  std::string proto = "auto";
  std::string min_bytes = "8";
  std::string max_bytes = "128M";
  double factor = 2.0;
  std::string dtype = "float";
  std::string calibration;
  std::string compare;
  std::string harness = "nccl-tests";  // the benchmark loop predicted (nccl_model.hpp BenchHarness): nccl-tests or torch
};
CommandResult collective(const CollectiveRequest& r);

// `plansim validate --sim S --measured M` (status 1: beyond the tolerance).
CommandResult validate_report(const std::string& sim, const std::string& measured, double tolerance);
// `plansim validate --runs ...` (status 1: a data set's MAPE more than 1 point above `expect`'s record).
// `write_expect`: the MAPE per data set in --expect's format, when asked for.
struct ValidateRunsRequest {
  std::vector<std::string> runs;
  std::vector<std::string> sets;  // calibration=FILE
  std::vector<std::string> datasets;
  std::string expect;
  unsigned threads = 0;
};
CommandResult validate_runs(const ValidateRunsRequest& r, std::string* write_expect = nullptr);

// `plansim calibrate BENCH.json...`: `text` is the profile YAML, `json` empty.
// Inputs: plansim-hw bench JSON and nccl-tests logs (stdout or -J JSON). With `topology`, the NCCL
// model's per-system parameters are fitted on it (`nodes` > 0 overrides its servers). messages[0] is
// the fit's residual table. `start` (a calibration profile or NCCL calibration file; empty = NCCL's
// documented defaults) holds the parameters the fit does not touch (e.g. Ampere's channel caps).
// `gpu`: the catalog model measured (empty: from the bench files' device name when the catalog knows it);
// with it the GEMM shape model and the HBM efficiency are fitted (their tables follow messages[0]'s).
CommandResult calibrate_bench(const std::vector<std::string>& inputs, const std::vector<std::string>& applies_to,
                              const std::string& topology = "", int nodes = 0, const std::string& start = "",
                              const std::string& gpu = "");
// `plansim calibrate --runs`: `text` is the profile YAML, messages[0] the fit table, `json` the fit.
struct CalibrateRunsRequest {
  std::vector<std::string> runs;  // runs files, fitted as one set
  std::vector<std::string> fit, keep, applies_to, datasets;
  std::string name, stack;
  bool leave_one_out = true, loo_exact = false;
  unsigned threads = 0;
};
CommandResult calibrate_runs(const CalibrateRunsRequest& r);

// `plansim report JSON...`: one self-contained HTML page (`text`) with a section per --json document of
// run, lint or validate (report/html_page.hpp); `title` "" = made from the documents' names. messages:
// what could not be drawn (the page says so too).
CommandResult report(const std::vector<std::string>& files, const std::string& title);

}  // namespace plansim::api
