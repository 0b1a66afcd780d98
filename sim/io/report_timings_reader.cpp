#include "sim/io/report_timings_reader.hpp"

#include "sim/io/yaml_reader.hpp"

namespace plansim::io {
namespace {

calib::ReportTimings read(const YamlFile& file) {
  calib::ReportTimings t;
  t.source = file.name();
  MapReader root(file, file.root(), "a report");
  t.iteration_pos = file.pos(root.require("iteration_time_s"));
  t.iteration_time_s = root.real("iteration_time_s", {0, limits::kMaxInputSeconds, true});
  const YAML::Node ops = root.require("ops");
  if (!ops.IsSequence()) file.fail(ops, "'ops' must be a list of {name, class, rank, duration_s}");
  for (const YAML::Node& node : ops) {
    MapReader r(file, node, "an op");
    calib::OpTiming op;
    op.name = r.required<std::string>("name");
    op.op_class = r.choice("class", calib::op_classes());
    op.rank = static_cast<int>(r.integer("rank", {0, limits::kMaxGpus - 1}));
    op.duration_s = r.real("duration_s", {0, limits::kMaxInputSeconds});
    op.pos = file.pos(node);
    t.ops.push_back(op);
  }
  return t;
}

}  // namespace

calib::ReportTimings read_report_timings(const std::filesystem::path& path) { return read(YamlFile::load(path)); }

calib::ReportTimings read_report_timings_text(const std::string& text, const std::string& name) {
  return read(YamlFile::parse(text, name));
}

}  // namespace plansim::io
