#include "sim/core/assert.hpp"

#include <fmt/format.h>

namespace plansim::detail {

void assert_failed(const char* cond, const char* file, int line, const std::string& msg) {
  throw InternalError(fmt::format("internal error at {}:{}: assertion `{}` failed: {}", file, line, cond, msg));
}

}  // namespace plansim::detail
