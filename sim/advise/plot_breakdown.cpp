// `plansim plot breakdown`: per stage, where the iteration goes (the report's `stages[].time_breakdown_s`,
// README "Definitions"): compute, exposed communication per dimension, exposed activation offload, pipeline
// bubble and idle time after the flush, stacked to the iteration time.
#include <fmt/format.h>

#include <array>
#include <cmath>

#include "sim/advise/plan_pictures.hpp"
#include "sim/advise/run_report_node.hpp"

namespace plansim::advise {

namespace {
struct Part {
  const char* key;
  const char* title;
  const char* color;
  bool since_2026_11 = false;  // absent from reports written before it came (read as 0)
};
constexpr std::array<Part, 9> kParts{{{"compute", "compute", "#4e79a7"},
                                      {"tp", "exposed TP", "#b07aa1"},
                                      {"cp", "exposed CP", "#9c755f"},
                                      {"ep", "exposed EP", "#f28e2b"},
                                      {"dp", "exposed DP", "#e15759"},
                                      {"pp", "exposed PP", "#76b7b2"},
                                      {"offload", "exposed activation offload", "#edc948", true},
                                      {"bubble", "pipeline bubble", "#d9d9d9"},
                                      {"idle", "idle after the flush", "#f2f2f2"}}};
}  // namespace

PlotSpec plot_breakdown(const YAML::Node& report) {
  const YAML::Node stages = report_list(report, "stages");
  if (stages.size() == 0) report_error(report["stages"], "the report has no stages");
  const double iteration = report_number(report, "iteration_time_s");
  // Milliseconds unless the iteration is 10 s or longer.
  const bool ms = iteration < 10;
  const double scale = ms ? 1e3 : 1;
  std::vector<std::array<double, kParts.size()>> rows;
  std::array<bool, kParts.size()> used{};
  used[0] = true;
  for (const YAML::Node& st : stages) {
    const YAML::Node t = report_field(st, "time_breakdown_s");
    auto& row = rows.emplace_back();
    for (size_t i = 0; i < kParts.size(); ++i) {
      const bool absent = kParts[i].since_2026_11 && t.IsMap() && !t[kParts[i].key];
      row[i] = absent ? 0.0 : report_number(t, kParts[i].key) * scale;
      used[i] = used[i] || row[i] > 1e-6 * iteration * scale;
    }
  }
  PlotSpec p;
  p.title = fmt::format("{}: where each stage's iteration goes", report_string(report, "name"));
  p.xlabel = "pipeline stage (its first rank)";
  p.ylabel = ms ? "time (ms)" : "time (s)";
  std::string b;
  for (size_t s = 0; s < rows.size(); ++s) {
    b += fmt::format("{}", report_int(stages[s], "stage"));
    for (double v : rows[s]) b += fmt::format(",{}", v);
    b += "\n";
  }
  p.blocks.push_back(b);
  const double top = iteration * scale;
  p.setup = fmt::format(
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.9 border lc rgb '#333333'\n"
      "set boxwidth 0.7\nset yrange [0:{}]\nset grid noxtics ytics\n"
      "set key outside right top vertical Left reverse\n"
      "set arrow from graph 0, first {} to graph 1, first {} nohead lw 2 dt 2 lc rgb '#000000' front\n"
      "set label 'iteration {:.4g} {}' at graph 0.01, first {} left offset 0,0.7 front\n",
      top * 1.12, top, top, top, ms ? "ms" : "s", top);
  std::string body;
  bool first = true;
  for (size_t i = 0; i < kParts.size(); ++i) {
    if (!used[i]) continue;
    body += fmt::format("{}DATA using {}{} title '{}' lc rgb '{}'", first ? "" : ", ", i + 2, first ? ":xtic(1)" : "",
                        kParts[i].title, kParts[i].color);
    first = false;
  }
  p.plot = body;
  p.width = 900;
  p.height = 480;
  return p;
}

}  // namespace plansim::advise
