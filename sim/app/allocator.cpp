#include "sim/app/allocator.hpp"

#include <cstdint>
#include <cstdlib>

#if defined(PLANSIM_WITH_MIMALLOC)
#include <mimalloc.h>
#include <sys/mman.h>

#include <fstream>
#include <stdexcept>
#include <string>
#endif

namespace plansim::app {

#if defined(PLANSIM_WITH_MIMALLOC)
namespace {

// The anonymous mapping that holds address p, from /proc/self/maps ("start-end perms ..."), or {0, 0}.
std::pair<std::uintptr_t, std::uintptr_t> mapping_of(const void* p) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    std::size_t dash = line.find('-'), space = line.find(' ');
    if (dash == std::string::npos || space == std::string::npos || space < dash) continue;
    try {
      const std::uintptr_t start = std::stoull(line.substr(0, dash), nullptr, 16);
      const std::uintptr_t end = std::stoull(line.substr(dash + 1, space - dash - 1), nullptr, 16);
      if (start <= a && a < end) return {start, end};
    } catch (const std::exception&) {  // not the format above: give no advice rather than fail
      return {0, 0};
    }
  }
  return {0, 0};
}

}  // namespace
#endif

void use_large_pages_for_the_heap() {
#if defined(PLANSIM_WITH_MIMALLOC)
  if (std::getenv("MIMALLOC_LARGE_OS_PAGES") != nullptr) return;  // the user's choice stands
  // Segments mapped from now on are 2 MiB-aligned and madvised MADV_HUGEPAGE.
  mi_option_set(mi_option_large_os_pages, 1);
  // The first segment was mapped before main() (the C++ runtime allocates at start-up), without that
  // advice: give it the same, so that its untouched 2 MiB ranges fault in as huge pages too.
  void* early = mi_malloc(1);
  const auto [start, end] = mapping_of(early);
  mi_free(early);
  if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);  // advice only
#endif
}

const char* heap_allocator_name() {
#if defined(PLANSIM_WITH_MIMALLOC)
  return mi_option_is_enabled(mi_option_large_os_pages) ? "mimalloc (2 MiB pages)" : "mimalloc (4 KiB pages)";
#else
  return "system malloc";
#endif
}

}  // namespace plansim::app
