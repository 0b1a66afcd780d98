#pragma once
// A JSON file read whole with positions: values are read by JSON pointer ("/stages/0/rank"), so that a
// missing key or a value of the wrong type is reported as `file:line:col` where it is in the file. Used
// for the documents plansim writes and reads back (reports, README "plansim report"; report timings,
// `plansim validate --sim/--measured`), which may be far larger than the 2 MiB cap on scenario inputs.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace plansim {

class JsonDocument {
 public:
  // Refuses a missing file, a directory, a file over 512 MiB, an empty or invalid document (at its position).
  static JsonDocument load(const std::filesystem::path& path);
  static JsonDocument parse(std::string text, std::string name);

  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const nlohmann::json& root() const { return root_; }

  // The position of the value at `pointer` (of the deepest existing parent when it is absent).
  [[nodiscard]] SourcePos pos(const std::string& pointer) const;
  [[noreturn]] void fail(const std::string& pointer, const std::string& message) const;
  // The positions of the elements of the list at `pointer`, in one pass over the text (empty if no list).
  [[nodiscard]] std::vector<SourcePos> element_positions(const std::string& pointer) const;

  [[nodiscard]] bool has(const std::string& pointer) const;
  // Typed reads: ConfigError at the value (or its parent, when missing) otherwise. `what` names the
  // document in the message about a missing key ("run report: '/x' is missing").
  [[nodiscard]] double number(const std::string& pointer) const;
  [[nodiscard]] double number_or(const std::string& pointer, double fallback) const;
  [[nodiscard]] std::string text(const std::string& pointer) const;
  [[nodiscard]] std::string text_or(const std::string& pointer, const std::string& fallback) const;
  [[nodiscard]] bool boolean(const std::string& pointer) const;
  [[nodiscard]] size_t array_size(const std::string& pointer) const;             // must be an array
  [[nodiscard]] const nlohmann::json& object(const std::string& pointer) const;  // must be an object

 protected:
  JsonDocument(std::string text, std::string name, nlohmann::json root);
  void set_what(std::string what) { what_ = std::move(what); }

 private:
  [[nodiscard]] const nlohmann::json& at(const std::string& pointer, const char* expected) const;
  std::string text_;
  std::string name_;
  nlohmann::json root_;
  std::string what_ = "document";
};

// The name of a JSON value's type in messages ("a list", "a number", ...).
const char* json_type_name(const nlohmann::json& j);

// A key as one JSON pointer token ('~' -> '~0', '/' -> '~1'), for keys that are data (class and data set names).
std::string json_pointer_token(const std::string& key);

// The index after the JSON string that starts at text[quote] == '"' (text.size() if it never closes).
size_t json_string_end(const std::string& text, size_t quote);
// The byte offset of the value at `pointer` in a JSON text known to be valid (std::string::npos if absent).
size_t json_value_offset(const std::string& text, const std::string& pointer);
// The byte offsets of the elements of the list at `pointer` (empty if there is no list there).
std::vector<size_t> json_element_offsets(const std::string& text, const std::string& pointer);

}  // namespace plansim
