// One libFuzzer harness: built once per entry point (fuzz/CMakeLists.txt defines PLANSIM_FUZZ_HARNESS).
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/entry_points.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  plansim::fuzz::PLANSIM_FUZZ_HARNESS(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
