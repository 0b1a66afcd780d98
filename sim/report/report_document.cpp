#include "sim/report/report_document.hpp"

#include <fmt/format.h>

namespace plansim {

const char* to_string(ReportKind k) {
  switch (k) {
    case ReportKind::run:
      return "run";
    case ReportKind::lint:
      return "lint";
    case ReportKind::validate_classes:
      return "validate";
    case ReportKind::validate_runs:
      return "validate --runs";
  }
  return "?";
}

ReportDocument ReportDocument::load(const std::filesystem::path& path) { return ReportDocument(JsonDocument::load(path)); }

ReportDocument ReportDocument::parse(std::string text, std::string name) {
  return ReportDocument(JsonDocument::parse(std::move(text), std::move(name)));
}

ReportDocument::ReportDocument(JsonDocument doc) : JsonDocument(std::move(doc)) {
  const std::string known =
      "expected the --json of `plansim run` (iteration_time_s, stages), `plansim lint` (base, findings) or "
      "`plansim validate` (classes, or files of runs)";
  if (!root().is_object()) fail("", fmt::format("the document is {}: {}", json_type_name(root()), known));
  if (root().contains("iteration_lower_bound_ms"))
    fail("", "a `plansim run --bound` document holds only a lower bound: plansim report draws a simulated run");
  if (root().contains("iteration_time_s") && root().contains("stages"))
    kind_ = ReportKind::run;
  else if (root().contains("findings") && root().contains("base"))
    kind_ = ReportKind::lint;
  else if (root().contains("classes") && root().contains("end_to_end_rel"))
    kind_ = ReportKind::validate_classes;
  else if (root().contains("files") && root().size() == 1)
    kind_ = ReportKind::validate_runs;
  else
    fail("", "not a document plansim report knows: " + known);
  set_what(fmt::format("{} report", to_string(kind_)));
}

}  // namespace plansim
