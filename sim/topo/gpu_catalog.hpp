#pragma once
// Built-in GPU models: dense tensor-core peak per dtype, memory capacity and bandwidth, SM count.
// A topology names one (`gpu: H100-SXM-80GB`) or defines its own inline. Every value cites its
// source in gpu_catalog.cpp (mostly stas00/ml-engineering's vendor-sourced tables, as compiled in
// the project's reference/hardware_constants.yaml).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/topo/gpu_spec.hpp"

namespace plansim {

// The catalog entry with this exact name (case-sensitive), or nullopt.
std::optional<GpuSpec> find_gpu_model(std::string_view name);
// Every catalog name, in catalog order.
std::vector<std::string> gpu_model_names();
// The catalog entry of a device as CUDA and nvidia-smi name it ("NVIDIA H200" -> H200-SXM-141GB), for
// measurements that carry the device name (plansim-hw's bench JSON); exact names only, nullopt otherwise.
std::optional<std::string> catalog_model_for_device(std::string_view cuda_name);

}  // namespace plansim
