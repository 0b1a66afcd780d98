#pragma once
// `plansim sweep`: the cartesian product of --vary keys (first key outermost), every point simulated
// through run_points; invalid points (the loader's message) stay in the table.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/advise/point_runner.hpp"
#include "sim/advise/results_file.hpp"

namespace plansim::advise {

struct VaryKey {
  std::string key;
  std::vector<std::string> values;
};

// "key=v1,v2,..." (commas inside [...] or {...} belong to the value). Throws ConfigError naming `flag`.
VaryKey parse_vary(const std::string& text, const std::string& flag = "--vary");

// Throws ConfigError when `key` is not a scenario key path (a typo would make every point invalid).
void check_scenario_key(const VaryKey& key);

// Points in row-major order (the last key varies fastest); each point is "key=value" per key. More than
// limits::kMaxSweepPoints points is a ConfigError, checked before any is built.
std::vector<std::vector<std::string>> cartesian(const std::vector<VaryKey>& keys);

struct SweepResult {
  std::vector<VaryKey> keys;
  std::vector<PointResult> points;
};

// Runs the points of `shard` (point I when I mod N = K; all by default) on `jobs` threads; with
// `out`, appends each finished point to that results file and skips those it already holds.
SweepResult run_sweep(const std::filesystem::path& scenario, const std::vector<std::string>& base_sets,
                      const std::vector<VaryKey>& keys, int jobs, const Shard& shard, const std::string& out,
                      const ProgressFn& progress = {});
// The shards' results files (check_shards) as the one-process sweep's result.
SweepResult merge_sweep(const std::vector<ShardFile>& shards);

std::string sweep_table(const SweepResult& r);  // aligned text table
std::string sweep_csv(const SweepResult& r);
std::string sweep_json(const SweepResult& r);

// The value of `key` in a point's overrides ("" when absent).
std::string value_of(const std::vector<std::string>& sets, const std::string& key);

}  // namespace plansim::advise
