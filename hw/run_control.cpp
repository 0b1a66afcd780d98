#include "hw/run_control.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <thread>

#include "hw/check.hpp"

namespace plansim::hw {

RunControl::RunControl(double timeout_s)
    : deadline_(std::chrono::steady_clock::now() +
                std::chrono::milliseconds(static_cast<int64_t>(timeout_s > 0 ? timeout_s * 1e3 : 1e12))) {}

void RunControl::fail(int rank, int device, const std::string& what) {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  {
    std::lock_guard lock(mutex_);
    std::cerr << fmt::format("plansim-hw: rank {} (GPU {} on {}): {}\n", rank, device, host, what) << std::flush;
  }
  failed_ = true;
  abort_ = true;
}

void RunControl::add(ncclComm_t comm) {
  std::lock_guard lock(mutex_);
  comms_.push_back(comm);
}

void RunControl::abort_all() {
  abort_ = true;
  std::lock_guard lock(mutex_);
  if (aborted_) return;
  aborted_ = true;
  for (ncclComm_t c : comms_) ncclCommAbort(c);
}

std::string RunControl::watch(const std::atomic<int>& running) {
  while (running.load() > 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::string why;
    if (failed_) why = "a rank failed";
    else if (std::chrono::steady_clock::now() > deadline_) why = "the run exceeded --timeout";
    else {
      std::lock_guard lock(mutex_);
      for (ncclComm_t c : comms_) {
        ncclResult_t st = ncclSuccess;
        if (ncclCommGetAsyncError(c, &st) == ncclSuccess && st != ncclSuccess && st != ncclInProgress) {
          why = fmt::format("NCCL reported an asynchronous error: {}", ncclGetErrorString(st));
          break;
        }
      }
    }
    if (!why.empty()) {
      abort_all();
      return why;
    }
  }
  return "";
}

void RunControl::await(ncclComm_t comm, ncclResult_t issued, const char* call) const {
  ncclResult_t st = issued;
  while (st == ncclInProgress) {
    if (abort_) throw AbortedError(fmt::format("{}: stopped, the run is being aborted", call));
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    if (ncclCommGetAsyncError(comm, &st) != ncclSuccess) break;
  }
  check_nccl(st, call, __FILE__, __LINE__);
}

}  // namespace plansim::hw
