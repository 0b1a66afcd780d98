#pragma once
// The NCCL world of `bench nccl` (and later of `plansim-hw run`): which local GPUs this process drives and
// one communicator per GPU, all in one clique.
//
// Without MPI (or with one MPI process): this process drives GPUs 0..g-1 and creates the communicators
// with ncclGroupStart / ncclCommInitRankConfig per device / ncclGroupEnd. With MPI: one or more GPUs per
// process; rank 0 creates the ncclUniqueId and broadcasts it over MPI; global NCCL rank = process * g +
// local index; the devices follow choose_devices (launch_env.hpp): --devices, else the whole visible set
// when it is the task's own (per-task binding), else the block of the process's index on its host
// (MPI_COMM_TYPE_SHARED). Communicators are nonblocking, so that a peer that never arrives is a timeout
// (--timeout) with a message, not a hang.
#include <memory>
#include <string>
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
  // Every process's string, in process order, on process 0 (others get theirs only).
  [[nodiscard]] std::vector<std::string> gather(const std::string& mine) const;
  // Prints `why` and ends every process of the job (MPI_Abort); a no-op with one process.
  void abort(const std::string& why, int code) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool initialized_here_ = false;
};

class NcclWorld {
 public:
  // Drives `gpus_per_process` local GPUs (0 = all visible ones when there is one process per host), or
  // `devices` when given. timeout_s > 0: give up waiting for the other ranks after that long.
  // nonblocking: ncclConfig_t::blocking = 0 (`run`, whose calls go through RunControl::await).
  NcclWorld(const ProcessGroup& procs, int gpus_per_process, const std::vector<int>& devices = {}, double timeout_s = 0,
            bool nonblocking = false);
  ~NcclWorld();
  NcclWorld(const NcclWorld&) = delete;
  NcclWorld& operator=(const NcclWorld&) = delete;

  [[nodiscard]] int nranks() const { return nranks_; }
  [[nodiscard]] int local_count() const { return static_cast<int>(devices_.size()); }
  [[nodiscard]] int device(int local) const { return devices_[static_cast<std::size_t>(local)]; }
  [[nodiscard]] int global_rank(int local) const { return first_rank_ + local; }
  [[nodiscard]] ncclComm_t comm(int local) const { return comms_[static_cast<std::size_t>(local)]; }
  // After ncclCommAbort (run_control.hpp) the communicators are gone: the destructor must not destroy them.
  void forget_aborted() { comms_.clear(); }

 private:
  int nranks_ = 0;
  int first_rank_ = 0;
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
};

}  // namespace plansim::hw
