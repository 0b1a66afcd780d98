#pragma once
// What the job launcher (Slurm, PMI, Open MPI) says about this process, and which local GPUs it drives.
// GPU-free and unit-tested: the environment comes in as a lookup function.
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace plansim::hw {

using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_env();  // std::getenv

// The launcher's task count and this task's index: SLURM_NTASKS/SLURM_PROCID, PMI_SIZE/PMI_RANK,
// OMPI_COMM_WORLD_SIZE/OMPI_COMM_WORLD_RANK, PMIX_SIZE... (1 and 0 when launched by hand).
int launcher_world_size(const EnvLookup& env);
int launcher_rank(const EnvLookup& env);

// Why this process must not run a multi-process command: the launcher started several tasks but the
// process group (MPI) sees `mpi_size` (1 without MPI). "" when fine.
std::string launcher_mismatch(const EnvLookup& env, int mpi_size, bool built_with_mpi);

// The local devices a process drives: `explicit_devices` when given (--devices); else when the visible
// set holds exactly `per_process` GPUs (per-task binding: --gpus-per-task, CUDA_VISIBLE_DEVICES per rank),
// all of them; else the local_rank-th block of `per_process`. Throws std::invalid_argument when they are
// not all visible.
std::vector<int> choose_devices(int visible, int per_process, int local_rank, const std::vector<int>& explicit_devices);

// Every NCCL_* and CUDA_* variable of the environment (name -> value), sorted by name.
nlohmann::json nccl_cuda_variables(char** environ_list);

}  // namespace plansim::hw
