#pragma once
// The NCCL world of `bench nccl` (and later of `plansim-hw run`): which local GPUs this process drives and
// one communicator per GPU, all in one clique.
//
// Without MPI (or with one MPI process): this process drives GPUs 0..g-1 and creates the communicators
// with ncclGroupStart / ncclCommInitRank per device / ncclGroupEnd. With MPI: one or more GPUs per process;
// rank 0 creates the ncclUniqueId and broadcasts it over MPI; global NCCL rank = process * g + local index;
// each process picks its GPUs by its index among the processes on the same host (MPI_COMM_TYPE_SHARED).
#include <memory>
#include <vector>

#include <nccl.h>

namespace plansim::hw {

// MPI_Init_thread / MPI_Finalize when built with MPI; a single-process stand-in without.
class ProcessGroup {
 public:
  ProcessGroup(int* argc, char*** argv);
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  [[nodiscard]] int local_rank() const { return local_rank_; }  // index among the processes on this host
  void broadcast(void* data, int bytes) const;                  // from process 0
  [[nodiscard]] double sum(double v) const;                     // over processes
  [[nodiscard]] double max(double v) const;
  void sum_in_place(std::vector<double>& v) const;              // element-wise over processes

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool initialized_here_ = false;
};

class NcclWorld {
 public:
  // Drives `gpus_per_process` local GPUs (0 = all visible ones when there is one process per host).
  NcclWorld(const ProcessGroup& procs, int gpus_per_process);
  ~NcclWorld();
  NcclWorld(const NcclWorld&) = delete;
  NcclWorld& operator=(const NcclWorld&) = delete;

  [[nodiscard]] int nranks() const { return nranks_; }
  [[nodiscard]] int local_count() const { return static_cast<int>(devices_.size()); }
  [[nodiscard]] int device(int local) const { return devices_[static_cast<std::size_t>(local)]; }
  [[nodiscard]] int global_rank(int local) const { return first_rank_ + local; }
  [[nodiscard]] ncclComm_t comm(int local) const { return comms_[static_cast<std::size_t>(local)]; }

 private:
  int nranks_ = 0;
  int first_rank_ = 0;
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
};

}  // namespace plansim::hw
