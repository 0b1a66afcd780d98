#include "sim/advise/plan_pictures.hpp"

#include <algorithm>

namespace plansim::advise {

PlotSpec plan_picture_spec(PlanPicture picture, const YAML::Node& run_report) {
  switch (picture) {
    case PlanPicture::timeline: return plot_timeline(run_report);
    case PlanPicture::memory: return plot_memory(run_report);
    case PlanPicture::breakdown: return plot_breakdown(run_report);
  }
  return plot_timeline(run_report);
}

std::string plan_picture_svg(PlanPicture picture, const YAML::Node& run_report) {
  return render_plot_svg(plan_picture_spec(picture, run_report));
}

YAML::Node run_report_node(Report report) {
  std::vector<uint32_t> ranks;
  for (const StageReport& st : report.stages) ranks.push_back(st.rank);
  std::sort(ranks.begin(), ranks.end());
  std::erase_if(report.ops, [&](const OpRecord& o) { return !std::binary_search(ranks.begin(), ranks.end(), o.rank); });
  return YAML::Load(report_json(report));
}

std::optional<PlanPicture> plan_picture_named(const std::string& name) {
  if (name == "timeline") return PlanPicture::timeline;
  if (name == "memory") return PlanPicture::memory;
  if (name == "breakdown") return PlanPicture::breakdown;
  return std::nullopt;
}

}  // namespace plansim::advise
