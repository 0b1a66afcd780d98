// `plansim plot memory`: per-stage stacked bars of the report's `stages[].memory` against the GPU's HBM
// capacity (`hbm_capacity_bytes`), in GiB.
#include <fmt/format.h>

#include <algorithm>

#include "sim/advise/plan_pictures.hpp"
#include "sim/advise/run_report_node.hpp"

namespace plansim::advise {

namespace {
constexpr double kGiB = 1024.0 * 1024 * 1024;
struct Part {
  const char* key;
  const char* title;
  const char* color;
};
// Bottom to top: what is resident all iteration, then what the schedule holds.
constexpr Part kParts[] = {{"weights_bytes", "weights", "#4e79a7"},
                           {"gradients_bytes", "gradients", "#59a14f"},
                           {"optimizer_bytes", "optimizer state", "#b07aa1"},
                           {"activations_bytes", "activations", "#f28e2b"},
                           {"temporary_bytes", "temporary", "#bab0ac"}};
}  // namespace

PlotSpec plot_memory(const YAML::Node& report) {
  const YAML::Node stages = report_list(report, "stages");
  if (stages.size() == 0) report_error(report["stages"], "the report has no stages");
  const double capacity = report_number(report, "hbm_capacity_bytes") / kGiB;
  PlotSpec p;
  p.title = fmt::format("{}: memory per GPU by pipeline stage", report_string(report, "name"));
  p.xlabel = "pipeline stage";
  p.ylabel = "GiB per GPU";
  std::string b;
  double top = capacity;
  for (const YAML::Node& st : stages) {
    const YAML::Node m = report_field(st, "memory");
    b += fmt::format("{}", report_int(st, "stage"));
    for (const Part& part : kParts) b += fmt::format(",{}", report_number(m, part.key) / kGiB);
    const double total = report_number(m, "total_bytes") / kGiB;
    b += fmt::format(",{},{}\n", total, total > capacity ? "OOM" : "");
    top = std::max(top, total);
  }
  p.blocks.push_back(b);
  p.setup = fmt::format(
      "set style data histograms\nset style histogram rowstacked\nset style fill solid 0.9 border lc rgb '#333333'\n"
      "set boxwidth 0.7\nset yrange [0:{}]\nset grid noxtics ytics\n"
      "set key outside right top vertical Left reverse\n"
      "set arrow from graph 0, first {} to graph 1, first {} nohead lw 2.5 dt 2 lc rgb '#d62728' front\n"
      "set label 'HBM {:.0f} GiB' at graph 0.01, first {} left offset 0,0.7 tc rgb '#d62728' front\n",
      top * 1.12, capacity, capacity, capacity, capacity);
  std::string body;
  for (size_t i = 0; i < std::size(kParts); ++i)
    body += fmt::format("{}DATA using {}{} title '{}' lc rgb '{}'", i ? ", " : "", i + 2, i ? "" : ":xtic(1)",
                        kParts[i].title, kParts[i].color);
  // The total above each bar; OOM where it exceeds the capacity.
  body += fmt::format(", DATA using ($0):7:(sprintf('%.1f%s', $7, strlen(strcol(8)) > 0 ? ' OOM' : '')) "
                      "with labels offset 0,0.8 notitle");
  p.plot = body;
  p.width = 900;
  p.height = 480;
  return p;
}

}  // namespace plansim::advise
