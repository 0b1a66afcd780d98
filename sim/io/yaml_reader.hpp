#pragma once
// io-internal: mark-aware reading of YAML documents. Only sim/io/*.cpp include this header (and so
// yaml-cpp). Every accessor that rejects a value throws ConfigError at the value's file:line:col.
// Before a document is built it is scanned once (yaml_scan.hpp): duplicate keys, non-scalar keys and a
// second document are errors with both positions, and documents past the size caps are refused.
// Numbers go through checked_number.hpp: finite, and inside the key's range or cap.
//
//   YamlFile file = YamlFile::load(path);          // file not found / directory / too big / syntax error
//   MapReader m(file, file.root(), "topology");    // must be a mapping
//   int n = m.required<int>("nodes");              // missing / wrong type -> ConfigError
//   Rate bw = m.rate("bandwidth");                 // unit strings
//   m.finish();                                    // unknown keys -> ConfigError with "did you mean"
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/limits.hpp"
#include "sim/core/units.hpp"
#include "sim/io/checked_number.hpp"

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

// A YAML value given outside a file (a --set override's right-hand side), checked as a file is
// (syntax, duplicate and non-scalar keys, size); errors are reported at `where`.
YAML::Node parse_value(const std::string& text, const std::string& where);

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

  // Typed readers with range checks. Integers have a cap (README "Limits"); the default is a generic
  // one for counts. Reals must be finite; positive_double accepts (0, 1e18].
  int positive_int(const std::string& key, int64_t cap = kDefaultCap);
  int positive_int_or(const std::string& key, int fallback, int64_t cap = kDefaultCap);
  int64_t integer(const std::string& key, IntRange range);
  int64_t integer_or(const std::string& key, IntRange range, int64_t fallback);
  double positive_double(const std::string& key);
  double real(const std::string& key, RealRange range);
  double real_or(const std::string& key, RealRange range, double fallback);
  static constexpr int64_t kDefaultCap = 16'777'216;
  Bytes positive_bytes(const std::string& key);
  Bytes bytes_or(const std::string& key, Bytes fallback);
  Rate positive_rate(const std::string& key);
  Rate rate_or(const std::string& key, Rate fallback);
  Time time(const std::string& key);  // zero allowed
  Time time_or(const std::string& key, Time fallback);
  FlopRate positive_flop_rate(const std::string& key);
  double watts(const std::string& key);  // "500 W", 1 W to 1 MW
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
  static constexpr double kMaxPlain = limits::kMaxPlainNumber;
};

// A scalar node as an integer of any width (decimal, or YAML's 0x/0o forms), or a finite real.
// ConfigError at the node, naming `key`, when the text is not one or does not fit.
int64_t scalar_integer(const YamlFile& file, const YAML::Node& n, const std::string& key, IntRange range);
double scalar_real(const YamlFile& file, const YAML::Node& n, const std::string& key, RealRange range);

// Converts a scalar node, with a precise message when the type is wrong. Integers must fit the type;
// reals must be finite (".nan", ".inf" and overflowing literals are errors).
template <class T>
T MapReader::scalar(const YAML::Node& n, const std::string& key) const {
  if (!n.IsScalar())
    fail(n, "'" + key + "' must be a single value, not a " + (n.IsMap() ? "mapping" : n.IsSequence() ? "list" : "null"));
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    const IntRange r{static_cast<int64_t>(std::numeric_limits<T>::min()),
                     std::numeric_limits<T>::max() > std::numeric_limits<int64_t>::max()
                         ? std::numeric_limits<int64_t>::max()
                         : static_cast<int64_t>(std::numeric_limits<T>::max())};
    return static_cast<T>(scalar_integer(*file_, n, key, r));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(scalar_real(*file_, n, key, RealRange{-kMaxPlain, kMaxPlain}));
  } else {
    try {
      return n.as<T>();
    } catch (const YAML::Exception&) {
      std::string kind = std::is_same_v<T, bool> ? "true or false" : "a string";
      fail(n, "'" + key + "' must be " + kind + ", got '" + n.Scalar() + "'");
    }
  }
}

}  // namespace plansim::io
