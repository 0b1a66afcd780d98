#pragma once
// Progress on stderr for long multi-simulation commands: a redrawn bar when stderr is a terminal,
// else a line every 10 % (logs and CI stay readable).
#include <cstddef>
#include <string>

namespace plansim::app {

class Progress {
 public:
  explicit Progress(std::string label);
  void update(size_t done, size_t total);

 private:
  std::string label_;
  bool tty_;
  size_t last_decile_ = 0;
};

}  // namespace plansim::app
