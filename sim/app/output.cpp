#include <fstream>
#include <iostream>

#include "sim/app/command.hpp"
#include "sim/core/error.hpp"

namespace plansim::app {

void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw ConfigError(SourcePos{path, 0, 0}, "cannot open this file for writing");
  out << text;
  if (!out) throw ConfigError(SourcePos{path, 0, 0}, "failed while writing this file");
}

}  // namespace plansim::app
