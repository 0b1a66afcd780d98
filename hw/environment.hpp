#pragma once
// What a measurement records beside its numbers (the bench JSON's and the `run` report's `environment`
// object): plansim-hw, CUDA driver/runtime, NCCL, cuBLASLt and cuDNN versions; every NCCL_* and CUDA_*
// variable; per process its hostname and per rank its GPU (name, PCI bus id) and nearest NIC; NVML's SM
// and memory clocks, power, temperature and throttle reasons sampled during the run; the detected
// topology (NVLinks, NICs) against the scenario's. NVML is loaded at run time (libnvidia-ml.so.1, which
// comes with the driver); without it the record says so.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/env_record.hpp"

namespace plansim::hw {

class ProcessGroup;

// Samples the given devices every `period_ms` on a thread of its own from construction to stop().
class NvmlSampler {
 public:
  NvmlSampler(const std::vector<int>& devices, int period_ms = 100);
  ~NvmlSampler();
  NvmlSampler(const NvmlSampler&) = delete;
  NvmlSampler& operator=(const NvmlSampler&) = delete;
  // Stops sampling; per device {"device", "pci_bus_id", summarize_samples(...)}, or {"nvml": why not}.
  nlohmann::json stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

DetectedTopology detect_topology(const std::vector<int>& devices);

// This process's record: versions, variables, host, the ranks it drives (rank -> GPU -> NIC), and the
// NVML summary when a sampler ran. `ranks[i]` runs on `devices[i]`.
nlohmann::json local_environment(const std::vector<int>& ranks, const std::vector<int>& devices, nlohmann::json nvml);

// Every process's local record gathered on process 0: {"tool", "versions", "variables", "processes": [...]}
// plus, when `facts` is given, "topology_check" of process 0's host against the scenario.
nlohmann::json gather_environment(const ProcessGroup& procs, const nlohmann::json& local, const TopologyFacts* facts,
                                  const std::vector<int>& devices);
// The same for a one-process bench (no topology check).
nlohmann::json bench_environment(const std::vector<int>& devices, nlohmann::json nvml);

}  // namespace plansim::hw
