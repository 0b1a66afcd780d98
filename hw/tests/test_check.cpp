// The error boundary: failing CUDA, NCCL and cuBLAS status codes become GpuError with the call text,
// file:line and the library's own error string. Needs the libraries, not a device.
#include <catch2/catch.hpp>

#include "hw/check.hpp"

using plansim::hw::GpuError;

TEST_CASE("success codes pass through the error boundary", "[hw]") {
  CHECK_NOTHROW(PLANSIM_CUDA(cudaSuccess));
  CHECK_NOTHROW(PLANSIM_NCCL(ncclSuccess));
  CHECK_NOTHROW(PLANSIM_CUBLAS(CUBLAS_STATUS_SUCCESS));
}

TEST_CASE("a failing CUDA call names the call, file:line and CUDA's error string", "[hw]") {
  const int line = __LINE__ + 2;
  try {
    PLANSIM_CUDA(cudaErrorMemoryAllocation);
    FAIL("no exception");
  } catch (const GpuError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("test_check.cpp:" + std::to_string(line) + ": cudaErrorMemoryAllocation failed"));
    CHECK_THAT(what, Catch::Contains("CUDA error 2: cudaErrorMemoryAllocation (out of memory)"));
    CHECK(e.library() == "CUDA");
    CHECK(e.code() == 2);
  }
}

TEST_CASE("failing NCCL and cuBLAS calls carry their library's message", "[hw]") {
  CHECK_THROWS_WITH(PLANSIM_NCCL(ncclInvalidArgument), Catch::Contains("NCCL error 4: invalid argument"));
  CHECK_THROWS_WITH(PLANSIM_NCCL(ncclInProgress), Catch::Contains("NCCL error"));  // blocking comms only
  CHECK_THROWS_WITH(PLANSIM_CUBLAS(CUBLAS_STATUS_NOT_SUPPORTED),
                    Catch::Contains("cuBLAS error 15: CUBLAS_STATUS_NOT_SUPPORTED"));
}
