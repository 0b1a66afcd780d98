#pragma once
// A JSON document written by `plansim run|lint|validate --json`, read back for `plansim report`
// (README "plansim report"). The kind is told by the document's shape; anything else is refused with a
// ConfigError at file:line:col. Fields are read by JSON pointer (io/json_document.hpp).
#include <filesystem>
#include <string>

#include "sim/io/json_document.hpp"

namespace plansim {

enum class ReportKind {
  run,               // `plansim run --json`
  lint,              // `plansim lint --json`
  validate_classes,  // `plansim validate --sim S --measured M --json`
  validate_runs,     // `plansim validate --runs R... --json`
};
const char* to_string(ReportKind k);

class ReportDocument : public JsonDocument {
 public:
  static ReportDocument load(const std::filesystem::path& path);
  static ReportDocument parse(std::string text, std::string name);

  [[nodiscard]] ReportKind kind() const { return kind_; }

 private:
  explicit ReportDocument(JsonDocument doc);
  ReportKind kind_ = ReportKind::run;
};

}  // namespace plansim
