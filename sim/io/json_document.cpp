#include "sim/io/json_document.hpp"

#include <fmt/format.h>

#include "sim/core/limits.hpp"
#include "sim/io/capped_file.hpp"
#include "sim/io/json_strict_scan.hpp"

namespace plansim {
namespace {

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

}  // namespace

const char* json_type_name(const nlohmann::json& j) {
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

JsonDocument JsonDocument::load(const std::filesystem::path& path) {
  return parse(io::read_capped_file(path, static_cast<size_t>(limits::kMaxReportFileBytes), "reports read back"),
               path.string());
}

JsonDocument JsonDocument::parse(std::string text, std::string name) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw ConfigError(SourcePos{name, 1, 1}, "the document is empty (expected a JSON document plansim wrote)");
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    if (const auto p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    throw ConfigError(offset_pos(name, text, e.byte > 0 ? e.byte - 1 : 0), "not valid JSON: " + what);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double's range: the scan finds where.
    const auto defect = json_strict_defect(text);
    if (!defect) throw ConfigError(SourcePos{name, 1, 1}, fmt::format("not valid JSON: {}", e.what()));
    throw ConfigError(offset_pos(name, text, defect->offset), defect->message);
  }
  if (const auto defect = json_strict_defect(text))
    throw ConfigError(offset_pos(name, text, defect->offset), defect->message);
  return JsonDocument(std::move(text), std::move(name), std::move(root));
}

JsonDocument::JsonDocument(std::string text, std::string name, nlohmann::json root)
    : text_(std::move(text)), name_(std::move(name)), root_(std::move(root)) {}

SourcePos JsonDocument::pos(const std::string& pointer) const {
  std::string p = pointer;
  for (;;) {
    const size_t off = json_value_offset(text_, p);
    if (off != std::string::npos) return offset_pos(name_, text_, off);
    if (p.empty()) return SourcePos{name_, 1, 1};
    p = p.substr(0, p.rfind('/'));
  }
}

void JsonDocument::fail(const std::string& pointer, const std::string& message) const {
  throw ConfigError(pos(pointer), message);
}

bool JsonDocument::has(const std::string& pointer) const {
  return root_.contains(nlohmann::json::json_pointer(pointer));
}

const nlohmann::json& JsonDocument::at(const std::string& pointer, const char* expected) const {
  const nlohmann::json::json_pointer p(pointer);
  if (!root_.contains(p))
    fail(pointer, fmt::format("{}: '{}' is missing (expected {})", what_, pointer, expected));
  return root_.at(p);
}

double JsonDocument::number(const std::string& pointer) const {
  const auto& j = at(pointer, "a number");
  if (!j.is_number()) fail(pointer, fmt::format("'{}' must be a number, not {}", pointer, json_type_name(j)));
  return j.get<double>();
}

double JsonDocument::number_or(const std::string& pointer, double fallback) const {
  return has(pointer) ? number(pointer) : fallback;
}

std::string JsonDocument::text(const std::string& pointer) const {
  const auto& j = at(pointer, "a string");
  if (!j.is_string()) fail(pointer, fmt::format("'{}' must be a string, not {}", pointer, json_type_name(j)));
  return j.get<std::string>();
}

std::string JsonDocument::text_or(const std::string& pointer, const std::string& fallback) const {
  return has(pointer) ? text(pointer) : fallback;
}

bool JsonDocument::boolean(const std::string& pointer) const {
  const auto& j = at(pointer, "true or false");
  if (!j.is_boolean()) fail(pointer, fmt::format("'{}' must be true or false, not {}", pointer, json_type_name(j)));
  return j.get<bool>();
}

size_t JsonDocument::array_size(const std::string& pointer) const {
  const auto& j = at(pointer, "a list");
  if (!j.is_array()) fail(pointer, fmt::format("'{}' must be a list, not {}", pointer, json_type_name(j)));
  return j.size();
}

const nlohmann::json& JsonDocument::object(const std::string& pointer) const {
  const auto& j = at(pointer, "an object");
  if (!j.is_object()) fail(pointer, fmt::format("'{}' must be an object, not {}", pointer, json_type_name(j)));
  return j;
}

std::vector<SourcePos> JsonDocument::element_positions(const std::string& pointer) const {
  const std::vector<size_t> offsets = json_element_offsets(text_, pointer);  // ascending
  std::vector<SourcePos> out;
  out.reserve(offsets.size());
  int line = 1;
  size_t line_start = 0, scanned = 0;
  for (const size_t off : offsets) {
    for (; scanned < off; ++scanned)
      if (text_[scanned] == '\n') {
        ++line;
        line_start = scanned + 1;
      }
    out.push_back(SourcePos{name_, line, static_cast<int>(off - line_start) + 1});
  }
  return out;
}

}  // namespace plansim
