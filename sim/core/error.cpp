#include "sim/core/error.hpp"

#include <fmt/format.h>

namespace plansim {

std::string SourcePos::to_string() const {
  if (file.empty()) return "<input>";
  if (line <= 0) return file;
  if (column <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

ConfigError::ConfigError(SourcePos pos, const std::string& message)
    : std::runtime_error(pos.to_string() + ": " + message), pos_(std::move(pos)), message_(message) {}

}  // namespace plansim
