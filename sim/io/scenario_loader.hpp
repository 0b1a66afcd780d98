#pragma once
// Public, yaml-free entry point for scenario files (the schema is in README "Scenario YAML").
//   LoadedScenario s = load_scenario("scenarios/gpt3-175b.yaml", {"training.micro_batch=2"});
// Every key is validated with file:line:col errors (ConfigError). `overrides` are "key.path=value"
// strings applied to the YAML tree before validation; a path naming no schema key is an error.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/plan/scenario.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

struct LoadedScenario {
  Scenario scenario;
  Topology topology;
};

LoadedScenario load_scenario(const std::filesystem::path& path, const std::vector<std::string>& overrides = {});

// For tests and embedding: the scenario text plus a factory standing in for the `topology` key
// (called with `nodes` when the scenario gives it, else with nullopt).
using TopologyFactory = std::function<Topology(std::optional<int> nodes)>;
LoadedScenario parse_scenario(const std::string& text, const std::string& name,
                              const std::vector<std::string>& overrides, const TopologyFactory& topology);

// The checks that do not depend on the other keys' values: the file reads (exists, not too large,
// YAML syntax, no duplicate keys, one document), the overrides apply, and every key is a schema key.
// For `sweep`: a file failing these is bad input (exit 2), not a table of invalid points.
void check_scenario_file(const std::filesystem::path& path, const std::vector<std::string>& overrides);

// The overrides of `--scale-layers N` / `--scale-batch N` (plansim run and plansim-hw run take both):
// "model.layers=N", "training.global_batch=N"; a value of 0 adds nothing.
std::vector<std::string> scale_overrides(int layers, int global_batch);

// Every key path the schema knows ("model.layers", "training.overlap.grad_reduce", ...).
const std::vector<std::string>& scenario_key_paths();

}  // namespace plansim
