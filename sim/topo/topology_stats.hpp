#pragma once
// What `plansim topo` reports about a cluster, computed from the graph alone (no YAML): per-GPU
// bandwidth at each tier, oversubscription per switch tier, bisection bandwidth, and route latency /
// hop count between GPU pairs at each distance.
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

struct TierBandwidth {
  std::string tier;  // "nvlink", "pcie", "nic", "leaf uplinks", "spine uplinks"
  Rate per_gpu;      // per direction
  std::string how;   // how the figure was obtained
};

struct TierOversubscription {
  std::string tier;  // "leaf", "spine"
  int switches = 0;
  double max_ratio = 0;  // max over switches of (capacity from below) / (capacity upwards)
  double min_ratio = 0;
};

struct DistanceSample {
  std::string distance;  // "same server", "same NVLink domain", "same leaf", "across spine", "across pod (core)"
  GpuId a, b;
  std::string a_name, b_name;
  int hops = 0;          // links on the route
  Time latency;          // sum of link latencies along the route
  Rate bottleneck;       // slowest link on the route
};

struct TopologySummary {
  std::string name;
  std::string gpu_model;
  size_t gpus = 0;
  int servers = 0;
  int islands = 0;           // servers, or NVLink domains spanning several servers
  size_t gpus_per_island = 0;
  size_t nodes = 0;
  size_t links = 0;          // directed
  std::vector<std::pair<std::string, size_t>> node_counts;  // by kind, in NodeKind order
  std::vector<TierBandwidth> per_gpu;
  std::vector<TierOversubscription> oversubscription;
  // Max-flow from the first half of the GPUs (by GpuId: host-major, so the first half of the servers)
  // to the second half, one direction; 0 with a single GPU.
  Rate bisection;
  std::vector<DistanceSample> distances;
};

TopologySummary summarize(const Topology& topo);

}  // namespace plansim
