#pragma once
// A JSON document written by `plansim run|lint|validate --json`, read back for `plansim report`
// (README "plansim report"). The kind is told by the document's shape; anything else is refused with a
// ConfigError at file:line:col. Fields are read by JSON pointer ("/stages/0/rank"), so that a missing
// key or a value of the wrong type is reported where it is in the file.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/core/error.hpp"

namespace plansim {

enum class ReportKind {
  run,               // `plansim run --json`
  lint,              // `plansim lint --json`
  validate_classes,  // `plansim validate --sim S --measured M --json`
  validate_runs,     // `plansim validate --runs R... --json`
};
const char* to_string(ReportKind k);

class ReportDocument {
 public:
  static ReportDocument load(const std::filesystem::path& path);
  static ReportDocument parse(std::string text, std::string name);

  [[nodiscard]] ReportKind kind() const { return kind_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const nlohmann::json& root() const { return root_; }

  // The position of the value at `pointer` (of the deepest existing parent when it is absent).
  [[nodiscard]] SourcePos pos(const std::string& pointer) const;
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const;

  [[nodiscard]] bool has(const std::string& pointer) const;
  // Typed reads: ConfigError at the value (or its parent, when missing) otherwise.
  [[nodiscard]] double number(const std::string& pointer) const;
  [[nodiscard]] double number_or(const std::string& pointer, double fallback) const;
  [[nodiscard]] std::string text(const std::string& pointer) const;
  [[nodiscard]] std::string text_or(const std::string& pointer, const std::string& fallback) const;
  [[nodiscard]] bool boolean(const std::string& pointer) const;
  [[nodiscard]] size_t array_size(const std::string& pointer) const;             // must be an array
  [[nodiscard]] const nlohmann::json& object(const std::string& pointer) const;  // must be an object

 private:
  ReportDocument(std::string text, std::string name, nlohmann::json root);
  [[nodiscard]] const nlohmann::json& at(const std::string& pointer, const char* expected) const;
  std::string text_;
  std::string name_;
  nlohmann::json root_;
  ReportKind kind_ = ReportKind::run;
};

// A key as one JSON pointer token ('~' -> '~0', '/' -> '~1'), for keys that are data (class and data set names).
std::string json_pointer_token(const std::string& key);

// The byte offset of the value at `pointer` in a JSON text known to be valid (std::string::npos if absent).
size_t json_value_offset(const std::string& text, const std::string& pointer);

}  // namespace plansim
