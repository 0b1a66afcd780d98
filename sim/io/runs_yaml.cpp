#include "sim/io/runs_yaml.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "sim/io/yaml_reader.hpp"

namespace plansim::io {
namespace {

std::string scalar_text(const YamlFile& f, const YAML::Node& n, const std::string& key) {
  if (n.IsScalar()) return n.Scalar();
  if (n.IsSequence()) {  // e.g. parallel.stage_layers: [7, 8, ...]
    YAML::Emitter e;
    e << YAML::Flow << n;
    return e.c_str();
  }
  f.fail(n, fmt::format("'set.{}' must be a value or a list", key));
}

calib::MeasuredRun read_run(const YamlFile& f, const YAML::Node& n, const std::vector<std::string>& extra) {
  MapReader m(f, n, "a run");
  calib::MeasuredRun r;
  r.pos = f.pos(n);
  r.name = m.required<std::string>("name");
  r.dataset = m.optional<std::string>("dataset", "default");
  r.source = m.required<std::string>("source");
  r.notes = m.optional<std::string>("notes", "");
  r.group = m.optional<std::string>("group", "");
  if (m.has("group") && r.group.empty()) m.fail(m.get("group"), "'group' must name the sweep the run belongs to");
  const YAML::Node scenario = m.require("scenario");
  std::filesystem::path path = m.required<std::string>("scenario");
  if (path.is_relative()) path = f.directory() / path;
  r.scenario_file = path.lexically_normal().string();
  if (YAML::Node set = m.get("set")) {
    if (!set.IsMap()) m.fail(set, "'set' must be a mapping of scenario keys to values");
    for (const auto& kv : set) {
      if (!kv.first.IsScalar()) f.fail(kv.first, "'set' keys must be scenario key paths like parallel.tp");
      r.overrides.push_back(kv.first.Scalar() + "=" + scalar_text(f, kv.second, kv.first.Scalar()));
    }
  }
  for (const auto& o : extra) r.overrides.push_back(o);

  const YAML::Node measured = m.require("measured");
  MapReader mm(f, measured, "'measured'");
  int found = 0;
  for (auto metric : {calib::RunMetric::iteration_time_s, calib::RunMetric::tokens_per_s,
                      calib::RunMetric::tokens_per_s_per_gpu, calib::RunMetric::tflops_per_gpu}) {
    if (!mm.has(calib::to_string(metric))) continue;
    ++found;
    r.metric = metric;
    r.value = mm.positive_double(calib::to_string(metric));
  }
  if (found != 1)
    f.fail(measured, "'measured' must give exactly one of iteration_time_s, tokens_per_s, tokens_per_s_per_gpu, "
                     "tflops_per_gpu");
  mm.finish();
  r.flop_formula = m.choice_or("flop_formula", {"plansim_model", "megatron2021_eq3"}, "plansim_model");
  if (m.has("flop_formula") && r.metric != calib::RunMetric::tflops_per_gpu)
    m.fail(m.get("flop_formula"), "'flop_formula' only applies to measured tflops_per_gpu");
  m.finish();
  if (!std::filesystem::is_regular_file(path))
    f.fail(scenario, fmt::format("scenario '{}' does not exist (paths are relative to the runs file)", path.string()));
  try {
    r.loaded = std::make_shared<const LoadedScenario>(load_scenario(path, r.overrides));
  } catch (const ConfigError& e) {
    throw ConfigError(r.pos, fmt::format("run '{}': {}: {}", r.name, e.pos().to_string(), e.message()));
  }
  return r;
}

// One file's runs of the data sets in `wanted` (all when empty); `seen` collects the data sets the file has.
calib::RunSet load_wanted_runs(const std::filesystem::path& file, const std::vector<std::string>& extra_overrides,
                               const std::set<std::string>& wanted, std::set<std::string>& seen) {
  const YamlFile f = YamlFile::load(file);
  MapReader m(f, f.root(), "a runs file");
  const YAML::Node version = m.require("plansim_runs");
  if (m.required<int>("plansim_runs") != 1) m.fail(version, "unknown runs format (this plansim reads 1)");
  calib::RunSet set;
  set.file = file.string();
  set.gpu = m.required<std::string>("gpu");
  const YAML::Node runs = m.require("runs");
  if (!runs.IsSequence() || runs.size() == 0) m.fail(runs, "'runs' must be a non-empty list");
  m.finish();
  std::set<std::string> names;
  for (const auto& n : runs) {
    if (!wanted.empty() && n.IsMap() && n["dataset"] && n["dataset"].IsScalar()) {
      seen.insert(n["dataset"].Scalar());
      if (wanted.count(n["dataset"].Scalar()) == 0) continue;
    }
    set.runs.push_back(read_run(f, n, extra_overrides));
    if (!names.insert(set.runs.back().name).second)
      f.fail(n, fmt::format("two runs are named '{}'", set.runs.back().name));
  }
  return set;
}

void check_datasets_found(const std::set<std::string>& wanted, const std::set<std::string>& seen,
                          const std::vector<std::string>& files) {
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "" : ", ") + f;
  for (const auto& d : wanted)
    if (seen.count(d) == 0)
      throw ConfigError(SourcePos{"--dataset " + d, 0, 0},
                        files.size() == 1 ? fmt::format("{} has no data set '{}'", list, d)
                                          : fmt::format("none of {} has a data set '{}'", list, d));
}

}  // namespace

std::vector<calib::RunSet> load_run_files(const std::vector<std::string>& files,
                                          const std::vector<std::string>& extra_overrides,
                                          const std::vector<std::string>& datasets) {
  const std::set<std::string> wanted(datasets.begin(), datasets.end());
  std::set<std::string> seen;
  std::vector<calib::RunSet> sets;
  for (const auto& file : files) sets.push_back(load_wanted_runs(file, extra_overrides, wanted, seen));
  check_datasets_found(wanted, seen, files);
  return sets;
}

calib::RunSet merge_run_sets(std::vector<calib::RunSet> sets) {
  calib::RunSet all;
  std::set<std::string> names, gpus;
  for (auto& s : sets) {
    all.file += (all.file.empty() ? "" : " ") + s.file;
    if (gpus.insert(s.gpu).second) all.gpu += (all.gpu.empty() ? "" : "+") + s.gpu;
    for (auto& r : s.runs) {
      if (!names.insert(r.name).second)
        throw ConfigError(SourcePos{s.file, 0, 0}, fmt::format("run '{}' is also in an earlier runs file", r.name));
      all.runs.push_back(std::move(r));
    }
  }
  return all;
}

}  // namespace plansim::io
