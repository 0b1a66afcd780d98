#pragma once
// The GPU-free half of what a measurement records (environment.hpp gathers the facts on the machine):
// NVML samples taken during the run summarised, throttle reasons named, the detected topology compared
// with the scenario's, and each GPU's nearest NIC. Unit-tested without a device.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/topo/topology.hpp"

namespace plansim::hw {

// One NVML reading of one GPU.
struct NvmlSample {
  double t_s = 0;          // since sampling started
  double sm_clock_mhz = 0;
  double mem_clock_mhz = 0;
  double power_w = 0;
  double temperature_c = 0;
  uint64_t throttle = 0;   // nvmlClocksEventReasons bit mask
};

// Names of the set bits of an NVML clocks-event (throttle) reason mask: gpu_idle,
// applications_clocks_setting, sw_power_cap, hw_slowdown, sync_boost, sw_thermal_slowdown,
// hw_thermal_slowdown, hw_power_brake_slowdown, display_clock_setting.
std::vector<std::string> throttle_reason_names(uint64_t mask);

// {"samples", "sm_clock_mhz": {min, median, max}, "mem_clock_mhz", "power_w", "temperature_c",
//  "throttle_reasons": [names seen, gpu_idle excluded], "throttled_fraction": samples with a reason other
//  than idle / samples}. Empty input: {"samples": 0}.
nlohmann::json summarize_samples(const std::vector<NvmlSample>& samples);

struct DetectedNic {
  std::string name;        // "mlx5_0"
  double rate_gbps = 0;    // per port, from /sys/class/infiniband/*/ports/1/rate
  std::string pci_path;    // resolved sysfs device path
};
struct DetectedTopology {
  int gpus = 0;                    // visible on this host
  std::vector<int> nvlinks;        // active NVLinks per GPU
  std::vector<std::string> gpu_pci_paths;
  std::vector<DetectedNic> nics;
};

// What the scenario's topology says about one server (the first one holding a GPU).
struct TopologyFacts {
  int gpus_per_host = 0;
  bool nvlink = false;
  int nics_per_host = 0;
  double nic_gbps = 0;  // the fastest NIC link, Gb/s
};
TopologyFacts topology_facts(const Topology& t);

// "400 Gb/sec (4X NDR)" -> 400; 0 when unreadable.
double parse_link_rate_gbps(const std::string& text);
// The NIC whose PCI path shares the longest prefix with the GPU's (same switch first); "" without NICs.
std::string nearest_nic(const std::string& gpu_pci_path, const std::vector<DetectedNic>& nics);

// {"detected": {...}, "scenario": {...}, "mismatches": ["the scenario has 8 GPUs per server, this host 2", ...]}.
// Fewer local GPUs than the scenario's servers hold is expected when a scaled scenario runs (noted, not
// an error); NVLink absent where the scenario has it, or slower NICs, are mismatches.
nlohmann::json topology_check(const DetectedTopology& d, const TopologyFacts& s);

}  // namespace plansim::hw
