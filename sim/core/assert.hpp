#pragma once
// Always-on invariant check (also in release builds): a failure is a plansim bug and throws
// InternalError with the condition and location, so tests catch it and the CLI reports it.
#include <string>

#include "sim/core/error.hpp"

namespace plansim::detail {
[[noreturn]] void assert_failed(const char* cond, const char* file, int line, const std::string& msg);
}

#define PLANSIM_ASSERT(cond, msg)                                                       \
  do {                                                                                  \
    if (!(cond)) ::plansim::detail::assert_failed(#cond, __FILE__, __LINE__, (msg));   \
  } while (false)
