#include "sim/app/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace plansim::app {

Progress::Progress(std::string label) : label_(std::move(label)), tty_(isatty(STDERR_FILENO) != 0) {}

void Progress::update(size_t done, size_t total) {
  if (total == 0) return;
  if (tty_) {
    constexpr size_t kWidth = 40;
    const size_t filled = done * kWidth / total;
    std::fprintf(stderr, "\r%s [%s%s] %zu/%zu", label_.c_str(), std::string(filled, '#').c_str(),
                 std::string(kWidth - filled, '.').c_str(), done, total);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
    return;
  }
  const size_t decile = done * 10 / total;
  if (decile > last_decile_ || done == total) {
    last_decile_ = decile;
    std::fprintf(stderr, "%s: %zu/%zu points simulated\n", label_.c_str(), done, total);
  }
}

}  // namespace plansim::app
