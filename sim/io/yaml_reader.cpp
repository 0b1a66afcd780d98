#include "sim/io/yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "sim/io/capped_file.hpp"
#include "sim/io/unit_parse.hpp"
#include "sim/io/yaml_scan.hpp"

namespace plansim::io {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

YamlFile YamlFile::load(const std::filesystem::path& path) {
  return parse(read_capped_file(path, static_cast<size_t>(limits::kMaxInputFileBytes), "input files"), path.string());
}

YamlFile YamlFile::parse(const std::string& text, std::string name) {
  if (text.size() > static_cast<size_t>(limits::kMaxInputFileBytes))
    throw ConfigError(SourcePos{name, 0, 0}, fmt::format("the input is larger than {} MiB, the cap on input files "
                                                         "(README 'Limits')", limits::kMaxInputFileBytes / 1048576));
  scan_yaml(text, name);
  try {
    YAML::Node root = YAML::Load(text);
    if (!root || root.IsNull()) throw ConfigError(SourcePos{name, 1, 1}, "the document is empty");
    return YamlFile(root, std::move(name));
  } catch (const YAML::ParserException& e) {
    throw ConfigError(SourcePos{name, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw ConfigError(SourcePos{name, e.mark.line + 1, e.mark.column + 1}, "cannot read this YAML: " + e.msg);
  }
}

YAML::Node parse_value(const std::string& text, const std::string& where) {
  if (text.size() > static_cast<size_t>(limits::kMaxInputFileBytes))
    throw ConfigError(SourcePos{where, 0, 0}, "the value is too long");
  scan_yaml(text, where, where);
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw ConfigError(SourcePos{where, 0, 0}, "the value is not valid YAML: " + e.msg);
  }
}

std::filesystem::path YamlFile::directory() const { return std::filesystem::path(name_).parent_path(); }

SourcePos YamlFile::pos(const YAML::Node& node) const {
  for (const auto& [n, where] : foreign_) {
    if (n.is(node)) return SourcePos{where, 0, 0};
    if (n.IsSequence() || n.IsMap())
      for (auto it = n.begin(); it != n.end(); ++it)
        if ((n.IsSequence() ? *it : it->second).is(node)) return SourcePos{where, 0, 0};
  }
  YAML::Mark m = node.Mark();
  if (m.is_null()) return SourcePos{name_, 0, 0};
  return SourcePos{name_, m.line + 1, m.column + 1};
}

void YamlFile::fail(const YAML::Node& node, const std::string& message) const { throw ConfigError(pos(node), message); }

std::optional<std::string> did_you_mean(std::string_view key, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_d = std::max<size_t>(2, key.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(key, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

MapReader::MapReader(const YamlFile& file, YAML::Node node, std::string what)
    : file_(&file), node_(std::move(node)), what_(std::move(what)) {
  if (!node_.IsMap()) file.fail(node_, fmt::format("{} must be a mapping of keys to values", what_));
}

bool MapReader::has(const std::string& key) {
  known_.insert(key);
  return static_cast<bool>(node_[key]);
}

YAML::Node MapReader::get(const std::string& key) {
  known_.insert(key);
  return node_[key];
}

YAML::Node MapReader::require(const std::string& key) {
  YAML::Node n = get(key);
  if (!n) {
    // A key nobody asked for yet that is a plausible typo of this one: name it, not only the absence.
    for (auto it = node_.begin(); it != node_.end(); ++it) {
      const std::string other = it->first.Scalar();
      if (known_.count(other) || !did_you_mean(other, {key})) continue;
      file_->fail(it->first, fmt::format("unknown key '{}' in {} (did you mean '{}'? {} requires it)", other, what_,
                                         key, what_));
    }
    file_->fail(node_, fmt::format("{} is missing the required key '{}'", what_, key));
  }
  if (n.IsNull()) file_->fail(n, fmt::format("'{}' has no value", key));
  return n;
}

void MapReader::allow(std::initializer_list<std::string> keys) { known_.insert(keys); }

void MapReader::finish() {
  std::vector<std::string> known(known_.begin(), known_.end());
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.Scalar();  // keys are scalars (yaml_scan.cpp)
    if (known_.count(key)) continue;
    std::string msg = fmt::format("unknown key '{}' in {}", key, what_);
    if (auto s = did_you_mean(key, known)) msg += fmt::format(" (did you mean '{}'?)", *s);
    else msg += fmt::format(" (known keys: {})", fmt::join(known, ", "));
    file_->fail(it->first, msg);
  }
}

int64_t scalar_integer(const YamlFile& file, const YAML::Node& n, const std::string& key, IntRange range) {
  if (!n.IsScalar())
    file.fail(n, fmt::format("'{}' must be a single value, not a {}", key,
                             n.IsMap() ? "mapping" : n.IsSequence() ? "list" : "null"));
  const std::string& text = n.Scalar();
  int64_t v = 0;
  try {
    v = parse_integer(text);
  } catch (const UnitError&) {
    // YAML's other integer forms (0x1F, 0o17); anything else is not an integer (or does not fit int64).
    long long alt = 0;
    if (text.find_first_of("xXoO") == std::string::npos || !YAML::convert<long long>::decode(n, alt))
      file.fail(n, fmt::format("'{}' must be {}, got '{}'", key, describe(range), text));
    v = alt;
  }
  if (auto p = range_problem(v, range); !p.empty()) file.fail(n, fmt::format("'{}' {}", key, p));
  return v;
}

double scalar_real(const YamlFile& file, const YAML::Node& n, const std::string& key, RealRange range) {
  if (!n.IsScalar())
    file.fail(n, fmt::format("'{}' must be a single value, not a {}", key,
                             n.IsMap() ? "mapping" : n.IsSequence() ? "list" : "null"));
  double v = 0;
  try {
    v = parse_real(n.Scalar());
  } catch (const UnitError& e) {
    file.fail(n, fmt::format("'{}' {}", key, e.what()));
  }
  if (auto p = range_problem(v, range); !p.empty()) file.fail(n, fmt::format("'{}' {}", key, p));
  return v;
}

int64_t MapReader::integer(const std::string& key, IntRange range) {
  return scalar_integer(*file_, require(key), key, range);
}

int64_t MapReader::integer_or(const std::string& key, IntRange range, int64_t fallback) {
  return has(key) ? integer(key, range) : fallback;
}

int MapReader::positive_int(const std::string& key, int64_t cap) {
  const int64_t hi = std::min<int64_t>(cap, std::numeric_limits<int>::max());
  return static_cast<int>(integer(key, IntRange{1, hi}));
}

int MapReader::positive_int_or(const std::string& key, int fallback, int64_t cap) {
  return has(key) ? positive_int(key, cap) : fallback;
}

double MapReader::positive_double(const std::string& key) {
  return real(key, RealRange{0, limits::kMaxPlainNumber, true});
}

double MapReader::real(const std::string& key, RealRange range) { return scalar_real(*file_, require(key), key, range); }

double MapReader::real_or(const std::string& key, RealRange range, double fallback) {
  return has(key) ? real(key, range) : fallback;
}

namespace {
template <class T, class F>
T parse_unit(const MapReader& r, const YAML::Node& n, const std::string& key, F parse) {
  if (!n.IsScalar()) r.fail(n, fmt::format("'{}' must be a single value with a unit", key));
  try {
    return parse(n.Scalar());
  } catch (const UnitError& e) {
    r.fail(n, fmt::format("'{}': {}", key, e.what()));
  }
}
}  // namespace

Bytes MapReader::positive_bytes(const std::string& key) {
  YAML::Node n = require(key);
  Bytes b = parse_unit<Bytes>(*this, n, key, parse_bytes);
  if (!(b.value() > 0)) fail(n, fmt::format("'{}' must be a positive size, got '{}'", key, n.Scalar()));
  return b;
}

Bytes MapReader::bytes_or(const std::string& key, Bytes fallback) {
  return has(key) ? positive_bytes(key) : fallback;
}

Rate MapReader::positive_rate(const std::string& key) {
  YAML::Node n = require(key);
  Rate r = parse_unit<Rate>(*this, n, key, parse_rate);
  if (!(r.value() >= limits::kMinRate))
    fail(n, fmt::format("'{}' must be a rate from 1 B/s to 1 PB/s, got '{}'", key, n.Scalar()));
  return r;
}

Rate MapReader::rate_or(const std::string& key, Rate fallback) { return has(key) ? positive_rate(key) : fallback; }

Time MapReader::time(const std::string& key) {
  YAML::Node n = require(key);
  return parse_unit<Time>(*this, n, key, parse_time);
}

Time MapReader::time_or(const std::string& key, Time fallback) { return has(key) ? time(key) : fallback; }

FlopRate MapReader::positive_flop_rate(const std::string& key) {
  YAML::Node n = require(key);
  FlopRate r = parse_unit<FlopRate>(*this, n, key, parse_flop_rate);
  if (!(r.value() >= limits::kMinFlopRate))
    fail(n, fmt::format("'{}' must be a rate from 1 FLOP/s to 1 EFLOP/s, got '{}'", key, n.Scalar()));
  return r;
}

double MapReader::watts(const std::string& key) {
  YAML::Node n = require(key);
  return parse_unit<double>(*this, n, key, parse_watts);
}

std::string MapReader::choice(const std::string& key, const std::vector<std::string>& allowed) {
  YAML::Node n = require(key);
  std::string v = scalar<std::string>(n, key);
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
  std::string msg = fmt::format("'{}' must be one of {}, got '{}'", key, fmt::join(allowed, ", "), v);
  if (auto s = did_you_mean(v, allowed)) msg += fmt::format(" (did you mean '{}'?)", *s);
  fail(n, msg);
}

std::string MapReader::choice_or(const std::string& key, const std::vector<std::string>& allowed, std::string fallback) {
  return has(key) ? choice(key, allowed) : fallback;
}

}  // namespace plansim::io
