#pragma once
// io-internal: which GPUs of the topology a plan runs on (README "Any subset of a cluster"). Without
// a `gpus` list the first `world` GPUs in the topology's host-major order (the rule of `plansim
// collective --gpus`); with one, the listed GPUs, rank r on the r-th entry. The topology must hold
// at least `world` GPUs (the loader's consistency check says so first).
#include "sim/io/yaml_reader.hpp"
#include "sim/topo/topology.hpp"

namespace plansim::io {

// `list`: the scenario's `gpus` value (undefined or null: none). ConfigError at the list or the entry
// for: not a list of integers, a GPU the topology lacks, a GPU listed twice, a count other than `world`.
Topology select_plan_gpus(const YamlFile& file, const YAML::Node& list, Topology topo, int world);

}  // namespace plansim::io
