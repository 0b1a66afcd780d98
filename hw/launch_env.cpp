#include "hw/launch_env.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <stdexcept>

namespace plansim::hw {
namespace {

int int_of(const EnvLookup& env, const char* name, int fallback) {
  const char* v = env(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n >= 0 && n < (1 << 30) ? static_cast<int>(n) : fallback;
}

constexpr const char* kSizes[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
constexpr const char* kRanks[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};

}  // namespace

EnvLookup process_env() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

int launcher_world_size(const EnvLookup& env) {
  for (const char* v : kSizes)
    if (const int n = int_of(env, v, 0); n > 0) return n;
  return 1;
}

int launcher_rank(const EnvLookup& env) {
  for (const char* v : kRanks)
    if (const int n = int_of(env, v, -1); n >= 0) return n;
  return 0;
}

std::string launcher_mismatch(const EnvLookup& env, int mpi_size, bool built_with_mpi) {
  const int tasks = launcher_world_size(env);
  if (tasks <= 1 || mpi_size == tasks) return {};
  if (!built_with_mpi)
    return fmt::format("the launcher started {} tasks but this plansim-hw was built without MPI: each task would run "
                       "alone on the same GPUs; rebuild with MPI (OpenMPI found by CMake) or run one task",
                       tasks);
  return fmt::format("the launcher started {} tasks but MPI sees {} process(es); start them through MPI (srun "
                     "--mpi=pmix, mpirun) so that they form one job",
                     tasks, mpi_size);
}

std::vector<int> choose_devices(int visible, int per_process, int local_rank, const std::vector<int>& explicit_devices) {
  std::vector<int> out;
  if (!explicit_devices.empty()) {
    for (int d : explicit_devices)
      if (d < 0 || d >= visible)
        throw std::invalid_argument(fmt::format("--devices names GPU {}, but {} are visible", d, visible));
    return explicit_devices;
  }
  if (per_process <= 0) throw std::invalid_argument("GPUs per process must be at least 1");
  const int first = visible == per_process ? 0 : local_rank * per_process;
  if (first + per_process > visible)
    throw std::invalid_argument(fmt::format("local process {} needs GPUs {}..{} but {} are visible (give each task its "
                                            "GPUs with --gpus-per-task or CUDA_VISIBLE_DEVICES, or name them with "
                                            "--devices)",
                                            local_rank, first, first + per_process - 1, visible));
  for (int i = 0; i < per_process; ++i) out.push_back(first + i);
  return out;
}

nlohmann::json nccl_cuda_variables(char** environ_list) {
  std::map<std::string, std::string> vars;
  for (char** e = environ_list; e != nullptr && *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    if (name.rfind("NCCL_", 0) == 0 || name.rfind("CUDA_", 0) == 0) vars[name] = entry.substr(eq + 1);
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : vars) out[k] = v;
  return out;
}

}  // namespace plansim::hw
