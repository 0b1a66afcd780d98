// TEMPORARY: replaced by the pics branch at merge.
// A minimal stand-in for the pictures of a plan (sim/advise/plan_pictures.hpp) so that `plansim report`
// and its tests run end to end: plain gnuplot charts through render_plot, drawn from the run report.
#include "sim/advise/plan_pictures.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/advise/plot.hpp"
#include "sim/core/error.hpp"

namespace plansim::advise {
namespace {

[[noreturn]] void lacks(const std::string& what) {
  throw ConfigError(SourcePos{"run report", 0, 0}, "the report has no " + what + " to draw");
}

PlotSpec memory_spec(const YAML::Node& r) {
  if (!r["stages"] || !r["stages"].IsSequence() || r["stages"].size() == 0) lacks("stages");
  PlotSpec s{"Memory per stage",
             "pipeline stage",
             "GB per GPU",
             {},
             "set style data histograms\nset style "
             "histogram rowstacked\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n",
             ""};
  std::string csv;
  for (const auto& st : r["stages"]) {
    const auto m = st["memory"];
    csv += fmt::format("{},{},{},{},{},{}\n", st["stage"].as<int>(), m["weights_bytes"].as<double>() / 1e9,
                       m["gradients_bytes"].as<double>() / 1e9, m["optimizer_bytes"].as<double>() / 1e9,
                       m["activations_bytes"].as<double>() / 1e9, m["temporary_bytes"].as<double>() / 1e9);
  }
  s.blocks.push_back(csv);
  s.setup += fmt::format("set arrow from graph 0, first {0} to graph 1, first {0} nohead lc rgb '#cc0000'\n",
                         r["hbm_capacity_bytes"].as<double>() / 1e9);
  s.plot =
      "DATA u 2:xtic(1) t 'weights', '' u 3 t 'gradients', '' u 4 t 'optimizer', '' u 5 t 'activations', "
      "'' u 6 t 'temporary'";
  return s;
}

PlotSpec breakdown_spec(const YAML::Node& r) {
  if (!r["stages"] || !r["stages"].IsSequence() || r["stages"].size() == 0) lacks("stages");
  PlotSpec s{"Iteration per stage",
             "pipeline stage",
             "seconds",
             {},
             "set style data histograms\nset style "
             "histogram rowstacked\nset style fill solid 0.8 border -1\nset boxwidth 0.7\n",
             ""};
  const double it = r["iteration_time_s"].as<double>();
  std::string csv;
  for (const auto& st : r["stages"]) {
    const double busy = st["compute_busy_s"].as<double>();
    const double bubble = st["bubble_fraction"].as<double>() * it;
    csv += fmt::format("{},{},{},{}\n", st["stage"].as<int>(), busy, bubble, std::max(0.0, it - busy - bubble));
  }
  s.blocks.push_back(csv);
  s.plot = "DATA u 2:xtic(1) t 'compute', '' u 3 t 'bubble', '' u 4 t 'other'";
  return s;
}

PlotSpec timeline_spec(const YAML::Node& r) {
  if (!r["ops"] || !r["ops"].IsSequence() || r["ops"].size() == 0) lacks("per-op records ('ops')");
  PlotSpec s{"Timeline", "time (s)", "rank", {}, "unset key\n", "DATA u 1:2:3:(0) with vectors nohead lw 6"};
  std::string csv;
  for (const auto& op : r["ops"])
    csv += fmt::format("{},{},{}\n", op["start_s"].as<double>(), op["rank"].as<int>(), op["duration_s"].as<double>());
  s.blocks.push_back(csv);
  return s;
}

}  // namespace

std::string plan_picture_svg(PlanPicture picture, const YAML::Node& run_report) {
  PlotSpec spec = picture == PlanPicture::memory      ? memory_spec(run_report)
                  : picture == PlanPicture::breakdown ? breakdown_spec(run_report)
                                                      : timeline_spec(run_report);
  std::error_code ec;
  const auto dir = std::filesystem::temp_directory_path() /
                   fmt::format("plansim-picture-{}-{}", ::getpid(), static_cast<int>(picture));
  std::filesystem::create_directories(dir, ec);
  const auto out = dir / "picture.svg";
  const std::string note = render_plot(spec, out);
  std::ostringstream text;
  if (note.empty()) text << std::ifstream(out).rdbuf();
  std::filesystem::remove_all(dir, ec);
  if (!note.empty()) throw ConfigError(SourcePos{"gnuplot", 0, 0}, note);
  return text.str();
}

}  // namespace plansim::advise
