#pragma once
// Owning wrappers for CUDA device memory, streams and events (created on the current device).
#include <cstddef>
#include <utility>

#include <cuda_runtime_api.h>

#include "hw/check.hpp"

namespace plansim::hw {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0) PLANSIM_CUDA(cudaMalloc(&ptr_, bytes));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(o.bytes_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  [[nodiscard]] void* get() const { return ptr_; }
  template <class T>
  [[nodiscard]] T* as() const { return static_cast<T*>(ptr_); }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  Stream() { PLANSIM_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  // cudaDeviceGetStreamPriorityRange: lower numbers are higher priorities.
  explicit Stream(int priority) {
    PLANSIM_CUDA(cudaStreamCreateWithPriority(&s_, cudaStreamNonBlocking, priority));
  }
  ~Stream() { cudaStreamDestroy(s_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  [[nodiscard]] cudaStream_t get() const { return s_; }
  void sync() const { PLANSIM_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  Event() { PLANSIM_CUDA(cudaEventCreate(&e_)); }
  ~Event() { cudaEventDestroy(e_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  [[nodiscard]] cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) const { PLANSIM_CUDA(cudaEventRecord(e_, s)); }

 private:
  cudaEvent_t e_ = nullptr;
};

// Seconds between two recorded events (after both completed).
inline double elapsed_seconds(const Event& start, const Event& stop) {
  PLANSIM_CUDA(cudaEventSynchronize(stop.get()));
  float ms = 0;
  PLANSIM_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return static_cast<double>(ms) * 1e-3;
}

}  // namespace plansim::hw
