#pragma once
// Failure handling of a multi-rank run: a rank that fails prints at once and raises the abort flag; a
// watchdog on the main thread polls every communicator's asynchronous error (ncclCommGetAsyncError) and a
// deadline (--timeout); on any of them it aborts every communicator (ncclCommAbort), which releases the
// ranks waiting in NCCL, and the process group (MPI_Abort), which stops the peers' processes.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include <nccl.h>

namespace plansim::hw {

class AbortedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class RunControl {
 public:
  explicit RunControl(double timeout_s);
  // A rank failed: print "plansim-hw: rank R (GPU D on HOST): what" to stderr now and raise the flag.
  void fail(int rank, int device, const std::string& what);
  [[nodiscard]] bool aborting() const { return abort_.load(); }
  [[nodiscard]] bool failed() const { return failed_.load(); }
  // Communicators the watchdog polls and aborts.
  void add(ncclComm_t comm);
  // Polls until `done` or a failure, an asynchronous NCCL error or the deadline; then aborts every
  // communicator and returns the reason ("" when done).
  std::string watch(const std::atomic<int>& running);
  // Waits while a nonblocking NCCL call or communicator is in progress (ncclInProgress); throws on error
  // or when the run is aborting.
  void await(ncclComm_t comm, ncclResult_t issued, const char* call) const;
  void abort_all();

 private:
  std::atomic<bool> abort_{false}, failed_{false};
  std::chrono::steady_clock::time_point deadline_;
  mutable std::mutex mutex_;
  std::vector<ncclComm_t> comms_;
  bool aborted_ = false;
};

}  // namespace plansim::hw
