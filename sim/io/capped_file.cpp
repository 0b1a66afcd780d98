#include "sim/io/capped_file.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "sim/core/error.hpp"

namespace plansim::io {

std::string read_capped_file(const std::filesystem::path& path, size_t cap_bytes, const std::string& what) {
  const SourcePos at{path.string(), 0, 0};
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found)
    throw ConfigError(at, "cannot open file: no such file (paths are relative to the current directory)");
  if (status.type() == std::filesystem::file_type::directory) throw ConfigError(at, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(at, fmt::format("cannot open file: {}", std::strerror(errno)));
  std::string text;
  std::array<char, 1 << 16> piece{};
  while (in.read(piece.data(), piece.size()) || in.gcount() > 0) {
    text.append(piece.data(), static_cast<size_t>(in.gcount()));
    if (text.size() > cap_bytes)
      throw ConfigError(at, fmt::format("the file is larger than {} MiB, the cap on {} (README 'Limits')",
                                        cap_bytes >> 20, what));
  }
  if (in.bad()) throw ConfigError(at, "cannot read file (an I/O error)");
  return text;
}

}  // namespace plansim::io
