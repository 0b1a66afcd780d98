#include "hw/nccl_bootstrap.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <stdexcept>

#ifdef PLANSIM_HAVE_MPI
#include <mpi.h>
#endif

#include "hw/check.hpp"

namespace plansim::hw {

#ifdef PLANSIM_HAVE_MPI
namespace {
void check_mpi(int status, const char* call) {
  if (status != MPI_SUCCESS) throw std::runtime_error(fmt::format("{} failed: MPI error {}", call, status));
}
}  // namespace

ProcessGroup::ProcessGroup(int* argc, char*** argv) {
  int already = 0;
  check_mpi(MPI_Initialized(&already), "MPI_Initialized");
  if (!already) {
    int provided = 0;
    check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    initialized_here_ = true;
  }
  check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm local;
  check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local),
            "MPI_Comm_split_type");
  check_mpi(MPI_Comm_rank(local, &local_rank_), "MPI_Comm_rank");
  MPI_Comm_free(&local);
}
ProcessGroup::~ProcessGroup() {
  if (initialized_here_) MPI_Finalize();
}
void ProcessGroup::broadcast(void* data, int bytes) const {
  check_mpi(MPI_Bcast(data, bytes, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}
double ProcessGroup::sum(double v) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  return out;
}
double ProcessGroup::max(double v) const {
  double out = 0;
  check_mpi(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return out;
}
void ProcessGroup::sum_in_place(std::vector<double>& v) const {
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD),
            "MPI_Allreduce");
}
#else
ProcessGroup::ProcessGroup(int*, char***) {}
ProcessGroup::~ProcessGroup() = default;
void ProcessGroup::broadcast(void*, int) const {}
double ProcessGroup::sum(double v) const { return v; }
double ProcessGroup::max(double v) const { return v; }
void ProcessGroup::sum_in_place(std::vector<double>&) const {}
#endif

NcclWorld::NcclWorld(const ProcessGroup& procs, int gpus_per_process) {
  int visible = 0;
  PLANSIM_CUDA(cudaGetDeviceCount(&visible));
  int g = gpus_per_process;
  if (g <= 0) {
    if (procs.size() > 1) g = 1;  // one GPU per process unless told otherwise
    else g = visible;
  }
  const int first_device = procs.local_rank() * g;
  if (first_device + g > visible)
    throw std::invalid_argument(fmt::format("process {} (local index {}) needs GPUs {}..{} but {} are visible",
                                         procs.rank(), procs.local_rank(), first_device, first_device + g - 1,
                                         visible));
  for (int i = 0; i < g; ++i) devices_.push_back(first_device + i);
  nranks_ = g * procs.size();
  first_rank_ = g * procs.rank();

  ncclUniqueId id{};
  if (procs.rank() == 0) PLANSIM_NCCL(ncclGetUniqueId(&id));
  procs.broadcast(&id, static_cast<int>(sizeof(id)));
  comms_.resize(devices_.size(), nullptr);
  PLANSIM_NCCL(ncclGroupStart());
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    PLANSIM_CUDA(cudaSetDevice(devices_[i]));
    PLANSIM_NCCL(ncclCommInitRank(&comms_[i], nranks_, id, first_rank_ + static_cast<int>(i)));
  }
  PLANSIM_NCCL(ncclGroupEnd());
}

NcclWorld::~NcclWorld() {
  for (ncclComm_t c : comms_)
    if (c != nullptr) ncclCommDestroy(c);
}

}  // namespace plansim::hw
