#include "sim/io/profile_yaml.hpp"

#include <fmt/format.h>

#include <mutex>
#include <optional>
#include <string_view>

#include "sim/io/compute_yaml.hpp"
#include "sim/io/profile_yaml_internal.hpp"
#include "sim/io/shipped_profiles_data.hpp"

namespace plansim::io {
namespace {

std::vector<std::string> string_list(MapReader& m, const std::string& key) {
  std::vector<std::string> out;
  YAML::Node n = m.get(key);
  if (!n) return out;
  if (n.IsScalar()) return {n.Scalar()};
  if (!n.IsSequence()) m.fail(n, fmt::format("'{}' must be a string or a list of strings", key));
  for (const auto& e : n) {
    if (!e.IsScalar()) m.fail(e, fmt::format("'{}' entries must be strings", key));
    out.push_back(e.Scalar());
  }
  return out;
}

// The provenance block: a mapping of strings or lists of strings; returns its one-line summary.
std::string read_source(const YamlFile& f, const YAML::Node& n) {
  if (n.IsScalar()) return n.Scalar();
  if (!n.IsMap()) f.fail(n, "'source' must be a string or a mapping (summary, fitted_by, data, ...)");
  std::string summary, fitted_by, first;
  for (const auto& kv : n) {
    if (!kv.first.IsScalar()) f.fail(kv.first, "'source' keys must be plain words");
    const YAML::Node& v = kv.second;
    if (v.IsSequence()) {
      for (const auto& e : v)
        if (!e.IsScalar()) f.fail(e, fmt::format("'source.{}' entries must be strings", kv.first.Scalar()));
    } else if (!v.IsScalar()) {
      f.fail(v, fmt::format("'source.{}' must be a string or a list of strings", kv.first.Scalar()));
    }
    const std::string key = kv.first.Scalar();
    const std::string text = v.IsScalar() ? v.Scalar() : "";
    if (key == "summary") summary = text;
    if (key == "fitted_by") fitted_by = text;
    if (first.empty()) first = text;
  }
  return !summary.empty() ? summary : !fitted_by.empty() ? fitted_by : first;
}

}  // namespace

CalibrationProfile read_profile(const YamlFile& f) {
  MapReader m(f, f.root(), "a calibration profile");
  const YAML::Node version = m.require("plansim_profile");
  const int v = m.required<int>("plansim_profile");
  if (v < 1 || v > kProfileFormatVersion)
    m.fail(version, v > kProfileFormatVersion
                        ? fmt::format("profile format {} is newer than this plansim reads (1 to {})", v, kProfileFormatVersion)
                        : fmt::format("unknown profile format {} (this plansim reads 1 to {})", v, kProfileFormatVersion));
  CalibrationProfile p;
  p.file = f.name();
  p.name = m.required<std::string>("name");
  p.applies_to = string_list(m, "applies_to");
  p.stack = m.optional<std::string>("stack", "");
  p.base_none = m.choice_or("base", {"none", "layered"}, "layered") == "none";
  p.source = read_source(f, m.require("source"));
  if (YAML::Node c = m.get("compute")) p.compute = read_compute(f, c);
  if (YAML::Node c = m.get("collectives"))
    p.collectives = std::make_shared<const NcclModelParams>(read_nccl_section(f, c, false, v));
  m.allow({"fit", "measured"});  // written by `plansim calibrate` for people; not read
  m.finish();
  return p;
}

CalibrationProfile load_profile(const std::filesystem::path& file) { return read_profile(YamlFile::load(file)); }

CalibrationProfile parse_profile(const std::string& text, const std::string& name) {
  return read_profile(YamlFile::parse(text, name));
}

namespace {
// `text` with the top-level blocks whose key `keep` refuses blanked line by line, so line numbers hold.
template <class Keep>
std::string top_level_blocks(const std::string& text, Keep keep) {
  std::string out;
  out.reserve(text.size());
  bool kept = true;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + at, end - at);
    // A new top-level key starts at column 0; comments, blank lines and a block's unindented sequence
    // items ("- ...") belong to the block before them.
    if (!line.empty() && line[0] != ' ' && line[0] != '#' && line[0] != '-' && line[0] != '\r')
      kept = keep(line.substr(0, line.find(':')));
    if (kept) out += line;
    if (end < text.size()) out += '\n';
    at = end + 1;
  }
  return out;
}

// The shipped profiles, parsed on first use. Choosing one reads only each profile's header (its
// `applies_to`), and the one chosen is parsed without its `fit:` and `measured:` blocks, written by
// `plansim calibrate` for people and ignored by read_profile: YAML-cpp spends about a thousand
// instructions a byte, and parsing every shipped profile whole was 19 % of `plansim run --bound` on the
// 9,216-GPU MoE.
struct ShippedProfiles {
  struct Entry {
    std::string path;
    const std::string* text;
    CalibrationProfile header;  // applies_to only
    std::once_flag parsed_once;
    std::optional<CalibrationProfile> parsed;
  };
  std::vector<Entry> entries;

  ShippedProfiles() : entries(shipped_profile_texts().size()) {
    const auto& texts = shipped_profile_texts();
    for (size_t i = 0; i < texts.size(); ++i) {
      Entry& e = entries[i];
      e.path = texts[i].first;
      e.text = &texts[i].second;
      const YamlFile header = YamlFile::parse(
          top_level_blocks(*e.text, [](std::string_view key) { return key == "applies_to"; }), "shipped:" + e.path);
      MapReader m(header, header.root(), "a calibration profile");
      e.header.applies_to = string_list(m, "applies_to");
    }
  }

  const CalibrationProfile& profile(size_t i) {
    Entry& e = entries[i];
    std::call_once(e.parsed_once, [&e] {
      e.parsed = parse_profile(
          top_level_blocks(*e.text, [](std::string_view key) { return key != "fit" && key != "measured"; }),
          "shipped:" + e.path);
    });
    return *e.parsed;
  }

  static ShippedProfiles& get() {
    static ShippedProfiles shipped;
    return shipped;
  }
};
}  // namespace

const std::vector<CalibrationProfile>& shipped_profiles() {
  static const std::vector<CalibrationProfile> profiles = [] {
    ShippedProfiles& shipped = ShippedProfiles::get();
    std::vector<CalibrationProfile> out;
    for (size_t i = 0; i < shipped.entries.size(); ++i) out.push_back(shipped.profile(i));
    return out;
  }();
  return profiles;
}

const CalibrationProfile* shipped_profile_for(const std::string& gpu_model) {
  ShippedProfiles& shipped = ShippedProfiles::get();
  for (size_t i = 0; i < shipped.entries.size(); ++i) {
    const CalibrationProfile& h = shipped.entries[i].header;
    if (!h.applies_to.empty() && h.applies_to_gpu(gpu_model)) return &shipped.profile(i);
  }
  return nullptr;
}

}  // namespace plansim::io

namespace plansim::io {

ComputeOverrides parse_compute_keys(const std::vector<std::pair<std::string, std::string>>& keys,
                                    const std::string& where) {
  YAML::Node map(YAML::NodeType::Map);
  for (const auto& [k, v] : keys) {
    YAML::Node value;
    try {
      value = YAML::Load(v);
    } catch (const YAML::Exception& e) {
      throw ConfigError(SourcePos{where, 0, 0}, fmt::format("'{}': the value '{}' is not valid YAML", k, v));
    }
    map[k] = value;
  }
  YamlFile f = YamlFile::parse("{}", where);
  f.add_foreign(map, where);
  for (const auto& kv : map) f.add_foreign(kv.second, where);
  return read_compute(f, map);
}

}  // namespace plansim::io
