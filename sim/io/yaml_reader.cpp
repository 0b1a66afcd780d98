#include "sim/io/yaml_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "sim/io/unit_parse.hpp"

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
  std::ifstream in(path);
  if (!in) throw ConfigError(SourcePos{path.string(), 0, 0}, "cannot open file (does it exist?)");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path.string());
}

YamlFile YamlFile::parse(const std::string& text, std::string name) {
  try {
    YAML::Node root = YAML::Load(text);
    if (!root || root.IsNull()) throw ConfigError(SourcePos{name, 1, 1}, "the document is empty");
    return YamlFile(root, std::move(name));
  } catch (const YAML::ParserException& e) {
    throw ConfigError(SourcePos{name, e.mark.line + 1, e.mark.column + 1}, "YAML syntax error: " + e.msg);
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
  if (!n) file_->fail(node_, fmt::format("{} is missing the required key '{}'", what_, key));
  if (n.IsNull()) file_->fail(n, fmt::format("'{}' has no value", key));
  return n;
}

void MapReader::allow(std::initializer_list<std::string> keys) { known_.insert(keys); }

void MapReader::finish() {
  std::vector<std::string> known(known_.begin(), known_.end());
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const std::string key = it->first.as<std::string>();
    if (known_.count(key)) continue;
    std::string msg = fmt::format("unknown key '{}' in {}", key, what_);
    if (auto s = did_you_mean(key, known)) msg += fmt::format(" (did you mean '{}'?)", *s);
    else msg += fmt::format(" (known keys: {})", fmt::join(known, ", "));
    file_->fail(it->first, msg);
  }
}

int MapReader::positive_int(const std::string& key) {
  YAML::Node n = require(key);
  int v = scalar<int>(n, key);
  if (v <= 0) fail(n, fmt::format("'{}' must be a positive integer, got {}", key, v));
  return v;
}

int MapReader::positive_int_or(const std::string& key, int fallback) {
  return has(key) ? positive_int(key) : fallback;
}

double MapReader::positive_double(const std::string& key) {
  YAML::Node n = require(key);
  double v = scalar<double>(n, key);
  if (!(v > 0)) fail(n, fmt::format("'{}' must be positive, got {}", key, v));
  return v;
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
  if (!(r.value() > 0)) fail(n, fmt::format("'{}' must be a positive rate, got '{}'", key, n.Scalar()));
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
  if (!(r.value() > 0)) fail(n, fmt::format("'{}' must be a positive rate, got '{}'", key, n.Scalar()));
  return r;
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
