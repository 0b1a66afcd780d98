#pragma once
// io-internal: mark-aware reading of YAML documents. Only sim/io/*.cpp include this header (and so
// yaml-cpp). Every accessor that rejects a value throws ConfigError at the value's file:line:col.
//
//   YamlFile file = YamlFile::load(path);          // file not found / syntax error -> ConfigError
//   MapReader m(file, file.root(), "topology");    // must be a mapping
//   int n = m.required<int>("nodes");              // missing / wrong type -> ConfigError
//   Rate bw = m.rate("bandwidth");                 // unit strings
//   m.finish();                                    // unknown keys -> ConfigError with "did you mean"
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace plansim::io {

class YamlFile {
 public:
  static YamlFile load(const std::filesystem::path& path);
  static YamlFile parse(const std::string& text, std::string name);  // for tests and inline documents
  [[nodiscard]] const YAML::Node& root() const { return root_; }
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] std::filesystem::path directory() const;  // for resolving relative paths
  [[nodiscard]] SourcePos pos(const YAML::Node& node) const;
  // A value that did not come from the file (e.g. a command-line override): errors about it, or
  // about its direct elements, are reported at `where` instead of a line of the file.
  void add_foreign(const YAML::Node& node, std::string where) { foreign_.emplace_back(node, std::move(where)); }
  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const;

 private:
  YamlFile(YAML::Node root, std::string name) : root_(std::move(root)), name_(std::move(name)) {}
  YAML::Node root_;
  std::string name_;
  std::vector<std::pair<YAML::Node, std::string>> foreign_;
};

// The closest candidate by edit distance, if it is close enough to be a plausible typo.
std::optional<std::string> did_you_mean(std::string_view key, const std::vector<std::string>& candidates);

// Reads a YAML mapping, remembering which keys were used so that finish() can reject the rest.
class MapReader {
 public:
  MapReader(const YamlFile& file, YAML::Node node, std::string what);

  [[nodiscard]] bool has(const std::string& key);  // marks the key as known
  [[nodiscard]] YAML::Node get(const std::string& key);  // marks known; a null node if absent
  [[nodiscard]] YAML::Node require(const std::string& key);  // ConfigError if absent

  template <class T>
  T required(const std::string& key) { return scalar<T>(require(key), key); }
  template <class T>
  T optional(const std::string& key, T fallback) {
    YAML::Node n = get(key);
    return n ? scalar<T>(n, key) : fallback;
  }

  // Typed readers with range checks.
  int positive_int(const std::string& key);
  int positive_int_or(const std::string& key, int fallback);
  double positive_double(const std::string& key);
  Bytes positive_bytes(const std::string& key);
  Bytes bytes_or(const std::string& key, Bytes fallback);
  Rate positive_rate(const std::string& key);
  Rate rate_or(const std::string& key, Rate fallback);
  Time time(const std::string& key);  // zero allowed
  Time time_or(const std::string& key, Time fallback);
  FlopRate positive_flop_rate(const std::string& key);
  // One of a fixed set of words; the error lists them.
  std::string choice(const std::string& key, const std::vector<std::string>& allowed);
  std::string choice_or(const std::string& key, const std::vector<std::string>& allowed, std::string fallback);

  // Keys this reader may see but the caller has not looked at yet (e.g. handled elsewhere).
  void allow(std::initializer_list<std::string> keys);
  // Throws for the first key in document order that was never asked for.
  void finish();

  [[nodiscard]] const YamlFile& file() const { return *file_; }
  [[nodiscard]] const YAML::Node& node() const { return node_; }
  [[noreturn]] void fail(const YAML::Node& n, const std::string& message) const { file_->fail(n, message); }

 private:
  template <class T>
  T scalar(const YAML::Node& n, const std::string& key) const;
  const YamlFile* file_;
  YAML::Node node_;
  std::string what_;
  std::set<std::string> known_;
};

// Converts a scalar node, with a precise message when the type is wrong.
template <class T>
T MapReader::scalar(const YAML::Node& n, const std::string& key) const {
  if (!n.IsScalar()) fail(n, "'" + key + "' must be a single value, not a " + (n.IsMap() ? "mapping" : "list"));
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    std::string kind = std::is_same_v<T, bool> ? "true or false" : std::is_integral_v<T> ? "an integer"
                       : std::is_floating_point_v<T> ? "a number" : "a string";
    fail(n, "'" + key + "' must be " + kind + ", got '" + n.Scalar() + "'");
  }
}

}  // namespace plansim::io
