#include "hw/nccl_bootstrap.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <stdexcept>
#include <thread>

#ifdef PLANSIM_HAVE_MPI
#include <mpi.h>
#endif

#include "hw/check.hpp"
#include "hw/launch_env.hpp"

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
std::vector<std::string> ProcessGroup::gather(const std::string& mine) const {
  if (size_ == 1) return {mine};
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<size_t>(size_)), offsets(static_cast<size_t>(size_), 0);
  check_mpi(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  int total = 0;
  for (size_t i = 0; i < lens.size(); ++i) {
    offsets[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<size_t>(rank_ == 0 ? total : 0), '\0');
  check_mpi(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
            "MPI_Gatherv");
  if (rank_ != 0) return {mine};
  std::vector<std::string> out;
  for (size_t i = 0; i < lens.size(); ++i)
    out.push_back(all.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lens[i])));
  return out;
}
void ProcessGroup::abort(const std::string& why, int code) const {
  if (size_ <= 1) return;
  std::cerr << "plansim-hw: process " << rank_ << ": " << why << "; aborting the job (MPI_Abort)" << std::endl;
  MPI_Abort(MPI_COMM_WORLD, code);
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
void ProcessGroup::abort(const std::string&, int) const {}
std::vector<std::string> ProcessGroup::gather(const std::string& mine) const { return {mine}; }
void ProcessGroup::broadcast(void*, int) const {}
double ProcessGroup::sum(double v) const { return v; }
double ProcessGroup::max(double v) const { return v; }
void ProcessGroup::sum_in_place(std::vector<double>&) const {}
#endif

NcclWorld::NcclWorld(const ProcessGroup& procs, int gpus_per_process, const std::vector<int>& devices,
                     double timeout_s, bool nonblocking) {
  int visible = 0;
  PLANSIM_CUDA(cudaGetDeviceCount(&visible));
  int g = !devices.empty() ? static_cast<int>(devices.size()) : gpus_per_process;
  if (g <= 0) g = procs.size() > 1 ? 1 : visible;  // one GPU per process unless told otherwise
  devices_ = choose_devices(visible, g, procs.local_rank(), devices);
  nranks_ = g * procs.size();
  first_rank_ = g * procs.rank();

  ncclUniqueId id{};
  if (procs.rank() == 0) PLANSIM_NCCL(ncclGetUniqueId(&id));
  procs.broadcast(&id, static_cast<int>(sizeof(id)));
  comms_.resize(devices_.size(), nullptr);
  ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
  cfg.blocking = nonblocking ? 0 : 1;
  PLANSIM_NCCL(ncclGroupStart());
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    PLANSIM_CUDA(cudaSetDevice(devices_[i]));
    const ncclResult_t st = ncclCommInitRankConfig(&comms_[i], nranks_, id, first_rank_ + static_cast<int>(i), &cfg);
    if (st != ncclInProgress) PLANSIM_NCCL(st);
  }
  const ncclResult_t end = ncclGroupEnd();
  if (end != ncclInProgress) PLANSIM_NCCL(end);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s > 0 ? timeout_s * 1e3 : 1e12));
  for (ncclComm_t c : comms_) {
    ncclResult_t st = ncclInProgress;
    while (st == ncclInProgress) {
      PLANSIM_NCCL(ncclCommGetAsyncError(c, &st));
      if (st != ncclInProgress) break;
      if (std::chrono::steady_clock::now() > deadline) {
        for (ncclComm_t a : comms_) ncclCommAbort(a);
        comms_.clear();
        throw std::runtime_error(fmt::format("the NCCL world of {} ranks did not form within --timeout {} s (a peer "
                                             "process did not start or failed)",
                                             nranks_, timeout_s));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    PLANSIM_NCCL(st);
  }
}

NcclWorld::~NcclWorld() {
  for (ncclComm_t c : comms_)
    if (c != nullptr) ncclCommDestroy(c);
}

}  // namespace plansim::hw
