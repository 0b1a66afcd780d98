#include "sim/report/report_document.hpp"

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace plansim {
namespace {

// A run report carries every op of every simulated rank: far larger than the 2 MiB cap on scenario
// inputs (README "Limits"). 512 MiB holds a 1,024-GPU run with its ops; larger is refused, not read.
constexpr size_t kMaxReportBytes = size_t{512} << 20;

SourcePos offset_pos(const std::string& name, const std::string& text, size_t offset) {
  offset = std::min(offset, text.size());
  int line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return SourcePos{name, line, static_cast<int>(offset - line_start) + 1};
}

const char* type_name(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "a list";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "true/false";
    case nlohmann::json::value_t::null:
      return "null";
    default:
      return "a number";
  }
}

}  // namespace

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

ReportDocument ReportDocument::load(const std::filesystem::path& path) {
  const SourcePos at{path.string(), 0, 0};
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found)
    throw ConfigError(at, "cannot open file: no such file (paths are relative to the current directory)");
  if (status.type() == std::filesystem::file_type::directory) throw ConfigError(at, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(at, fmt::format("cannot open file: {}", std::strerror(errno)));
  // Read in pieces (not a cap-sized buffer: a small file costs its size), refused once past the cap.
  std::string text;
  std::array<char, 1 << 16> piece{};
  while (in.read(piece.data(), piece.size()) || in.gcount() > 0) {
    text.append(piece.data(), static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxReportBytes)
      throw ConfigError(at,
                        fmt::format("the file is larger than {} MiB, the cap on report inputs", kMaxReportBytes >> 20));
  }
  if (in.bad()) throw ConfigError(at, "cannot read file (an I/O error)");
  return parse(std::move(text), path.string());
}

ReportDocument ReportDocument::parse(std::string text, std::string name) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(SourcePos{name, 1, 1},
                      "the document is empty (expected the --json of plansim run, lint or validate)");
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (const auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    throw ConfigError(offset_pos(name, text, e.byte > 0 ? e.byte - 1 : 0), "not valid JSON: " + what);
  }
  return ReportDocument(std::move(text), std::move(name), std::move(root));
}

ReportDocument::ReportDocument(std::string text, std::string name, nlohmann::json root)
    : text_(std::move(text)), name_(std::move(name)), root_(std::move(root)) {
  const std::string known =
      "expected the --json of `plansim run` (iteration_time_s, stages), `plansim lint` (base, findings) or "
      "`plansim validate` (classes, or files of runs)";
  if (!root_.is_object()) fail("", fmt::format("the document is {}: {}", type_name(root_), known));
  if (root_.contains("iteration_lower_bound_ms"))
    fail("", "a `plansim run --bound` document holds only a lower bound: plansim report draws a simulated run");
  if (root_.contains("iteration_time_s") && root_.contains("stages"))
    kind_ = ReportKind::run;
  else if (root_.contains("findings") && root_.contains("base"))
    kind_ = ReportKind::lint;
  else if (root_.contains("classes") && root_.contains("end_to_end_rel"))
    kind_ = ReportKind::validate_classes;
  else if (root_.contains("files") && root_.size() == 1)
    kind_ = ReportKind::validate_runs;
  else
    fail("", "not a document plansim report knows: " + known);
}

SourcePos ReportDocument::pos(const std::string& pointer) const {
  std::string p = pointer;
  for (;;) {
    const size_t off = json_value_offset(text_, p);
    if (off != std::string::npos) return offset_pos(name_, text_, off);
    if (p.empty()) return SourcePos{name_, 1, 1};
    p = p.substr(0, p.rfind('/'));
  }
}

void ReportDocument::fail(const std::string& pointer, const std::string& message) const {
  throw ConfigError(pos(pointer), message);
}

bool ReportDocument::has(const std::string& pointer) const {
  return root_.contains(nlohmann::json::json_pointer(pointer));
}

const nlohmann::json& ReportDocument::at(const std::string& pointer, const char* expected) const {
  const nlohmann::json::json_pointer p(pointer);
  if (!root_.contains(p))
    fail(pointer, fmt::format("{} report: '{}' is missing (expected {})", to_string(kind_), pointer, expected));
  return root_.at(p);
}

double ReportDocument::number(const std::string& pointer) const {
  const auto& j = at(pointer, "a number");
  if (!j.is_number()) fail(pointer, fmt::format("'{}' must be a number, not {}", pointer, type_name(j)));
  return j.get<double>();
}

double ReportDocument::number_or(const std::string& pointer, double fallback) const {
  return has(pointer) ? number(pointer) : fallback;
}

std::string ReportDocument::text(const std::string& pointer) const {
  const auto& j = at(pointer, "a string");
  if (!j.is_string()) fail(pointer, fmt::format("'{}' must be a string, not {}", pointer, type_name(j)));
  return j.get<std::string>();
}

std::string ReportDocument::text_or(const std::string& pointer, const std::string& fallback) const {
  return has(pointer) ? text(pointer) : fallback;
}

bool ReportDocument::boolean(const std::string& pointer) const {
  const auto& j = at(pointer, "true or false");
  if (!j.is_boolean()) fail(pointer, fmt::format("'{}' must be true or false, not {}", pointer, type_name(j)));
  return j.get<bool>();
}

size_t ReportDocument::array_size(const std::string& pointer) const {
  const auto& j = at(pointer, "a list");
  if (!j.is_array()) fail(pointer, fmt::format("'{}' must be a list, not {}", pointer, type_name(j)));
  return j.size();
}

const nlohmann::json& ReportDocument::object(const std::string& pointer) const {
  const auto& j = at(pointer, "an object");
  if (!j.is_object()) fail(pointer, fmt::format("'{}' must be an object, not {}", pointer, type_name(j)));
  return j;
}

}  // namespace plansim
