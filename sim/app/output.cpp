#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>

#include "sim/app/command.hpp"
#include "sim/core/error.hpp"

namespace plansim::app {

// A regular file is written to a temporary file beside it and renamed into place, so a failure
// leaves either the old file or nothing, never a partial one ("nothing is lost"). Anything else
// (/dev/null, a pipe) is written directly.
void write_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  const SourcePos at{path, 0, 0};
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::directory) throw ConfigError(at, "is a directory; give a file name");
  const bool direct = std::filesystem::exists(status) && !std::filesystem::is_regular_file(status);
  const std::string target = direct ? path : path + ".plansim-tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(target, std::ios::binary);
    if (!out) throw ConfigError(at, "cannot open this file for writing (does its directory exist?)");
    out << text;
    out.flush();
    if (!out) {
      out.close();
      if (!direct) std::filesystem::remove(target, ec);
      throw ConfigError(at, "failed while writing this file (disk full?)");
    }
  }
  if (direct) return;
  std::filesystem::rename(target, path, ec);
  if (ec) {
    std::filesystem::remove(target, ec);
    throw ConfigError(at, "cannot replace this file");
  }
}

void check_output_path(const std::string& flag, const std::string& path) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p, ec)) throw ConfigError(SourcePos{flag, 0, 0}, "'" + path + "' is a directory; give a file name");
  const std::filesystem::path dir = p.has_parent_path() ? p.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(dir, ec))
    throw ConfigError(SourcePos{flag, 0, 0}, "'" + path + "': the directory '" + dir.string() + "' does not exist");
}

}  // namespace plansim::app
