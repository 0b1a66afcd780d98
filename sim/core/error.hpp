#pragma once
// Errors that reach the user. ConfigError carries the input position so the CLI can print
// `file:line:col: message` and exit 2. Internal invariant failures throw InternalError (a bug).
#include <stdexcept>
#include <string>

namespace plansim {

// A position in an input file; line and column are 1-based (0 = unknown).
struct SourcePos {
  std::string file;
  int line = 0;
  int column = 0;
  [[nodiscard]] std::string to_string() const;  // "file:line:col" (parts that are known)
};

// Bad user input: a file that cannot be read, malformed YAML, an invalid value.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourcePos pos, const std::string& message);
  [[nodiscard]] const SourcePos& pos() const { return pos_; }
  [[nodiscard]] const std::string& message() const { return message_; }

 private:
  SourcePos pos_;
  std::string message_;
};

// A violated internal invariant: a plansim bug, never the user's fault.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace plansim
