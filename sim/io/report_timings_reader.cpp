#include "sim/io/report_timings_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "sim/core/limits.hpp"
#include "sim/io/json_document.hpp"

namespace plansim::io {
namespace {

// A whole number in [0, kMaxGpus), or a ConfigError at the value.
int rank_at(const JsonDocument& doc, const nlohmann::json& v, const std::string& pointer) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() != std::floor(v.get<double>()) ||
      v.get<double>() < 0 || v.get<double>() > static_cast<double>(limits::kMaxGpus - 1))
    doc.fail(pointer, fmt::format("'{}' must be an integer from 0 to {}", pointer, limits::kMaxGpus - 1));
  return static_cast<int>(v.get<double>());
}

double seconds_at(const JsonDocument& doc, const nlohmann::json& v, const std::string& pointer) {
  if (!v.is_number() || !(v.get<double>() >= 0) || v.get<double>() > limits::kMaxInputSeconds)
    doc.fail(pointer, fmt::format("'{}' must be a number of seconds from 0 to {:g}", pointer, limits::kMaxInputSeconds));
  return v.get<double>();
}

calib::ReportTimings read(const JsonDocument& doc) {
  calib::ReportTimings t;
  t.source = doc.name();
  const nlohmann::json& root = doc.root();
  if (!root.is_object())
    doc.fail("", fmt::format("the document is {}: expected a report (iteration_time_s, ops)", json_type_name(root)));
  if (!root.contains("iteration_time_s")) doc.fail("", "a report needs 'iteration_time_s' (seconds)");
  t.iteration_pos = doc.pos("/iteration_time_s");
  t.iteration_time_s = seconds_at(doc, root["iteration_time_s"], "/iteration_time_s");
  if (!root.contains("ops") || !root["ops"].is_array())
    doc.fail("/ops", "'ops' must be a list of {name, class, rank, duration_s}");
  const nlohmann::json& ops = root["ops"];
  const std::vector<SourcePos> positions = doc.element_positions("/ops");
  t.ops.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const std::string at = fmt::format("/ops/{}", i);
    const nlohmann::json& o = ops[i];
    if (!o.is_object()) doc.fail(at, "an op must be {name, class, rank, duration_s}");
    for (const char* key : {"name", "class", "rank", "duration_s"})
      if (!o.contains(key)) doc.fail(at, fmt::format("an op needs '{}'", key));
    calib::OpTiming op;
    if (!o["name"].is_string()) doc.fail(at + "/name", "an op's 'name' must be a string");
    op.name = o["name"].get<std::string>();
    const nlohmann::json& cls = o["class"];
    const auto& classes = calib::op_classes();
    if (!cls.is_string() || std::find(classes.begin(), classes.end(), cls.get<std::string>()) == classes.end())
      doc.fail(at + "/class", fmt::format("an op's 'class' must be one of {}", fmt::join(classes, ", ")));
    op.op_class = cls.get<std::string>();
    op.rank = rank_at(doc, o["rank"], at + "/rank");
    op.duration_s = seconds_at(doc, o["duration_s"], at + "/duration_s");
    op.pos = positions.at(i);
    t.ops.push_back(std::move(op));
  }
  // A folded simulation report says which executed rank stands for each rank (`ranks[].executed_as`).
  if (root.contains("ranks")) {
    const nlohmann::json& ranks = root["ranks"];
    if (!ranks.is_array()) doc.fail("/ranks", "'ranks' must be a list of {rank, executed_as}");
    for (size_t i = 0; i < ranks.size(); ++i) {
      const std::string at = fmt::format("/ranks/{}", i);
      if (!ranks[i].is_object() || !ranks[i].contains("rank")) doc.fail(at, "a rank must be {rank, executed_as}");
      if (!ranks[i].contains("executed_as")) continue;
      const int rank = rank_at(doc, ranks[i]["rank"], at + "/rank");
      const int executed = rank_at(doc, ranks[i]["executed_as"], at + "/executed_as");
      if (!t.executed_as.emplace(rank, executed).second)
        doc.fail(at, fmt::format("rank {} is listed twice under 'ranks'", rank));
    }
  }
  return t;
}

}  // namespace

calib::ReportTimings read_report_timings(const std::filesystem::path& path) { return read(JsonDocument::load(path)); }

calib::ReportTimings read_report_timings_text(const std::string& text, const std::string& name) {
  return read(JsonDocument::parse(text, name));
}

}  // namespace plansim::io
