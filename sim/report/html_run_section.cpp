// The section of a `plansim run --json` report: summary, per-stage table, the three pictures of the plan
// (advise/plan_pictures.hpp), notes, calibration profiles and the symmetry shortcuts.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <array>

#include "sim/advise/plan_pictures.hpp"
#include "sim/core/error.hpp"
#include "sim/report/html_page.hpp"
#include "sim/report/html_writer.hpp"

namespace plansim::html {
namespace {

constexpr std::array<const char*, 5> kDims{"tp", "cp", "ep", "dp", "pp"};
// Per-op records beyond this many are left out of what the pictures read (a YAML tree costs ~450 bytes
// per value; the timeline of a run this large is drawn from the stages' first ranks anyway).
constexpr size_t kMaxPictureOps = 200'000;

YAML::Node to_yaml(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      YAML::Node n(YAML::NodeType::Map);
      for (const auto& [k, v] : j.items()) n[k] = to_yaml(v);
      return n;
    }
    case nlohmann::json::value_t::array: {
      YAML::Node n(YAML::NodeType::Sequence);
      for (const auto& v : j) n.push_back(to_yaml(v));
      return n;
    }
    case nlohmann::json::value_t::string:
      return YAML::Node(j.get<std::string>());
    case nlohmann::json::value_t::null:
      return YAML::Node();
    default:
      return YAML::Node(j.dump());  // numbers and booleans in JSON's spelling: as<double>/as<bool> read them
  }
}

std::string gb(double bytes) { return fixed(bytes / 1e9, 2); }

std::string summary(const ReportDocument& d) {
  std::string t =
      "<table class=\"summary\"><thead><tr><th>figure</th><th class=\"num\">value</th><th>unit</th>"
      "</tr></thead><tbody>\n";
  const double gpus = d.number("/gpus");
  const double topo = d.number_or("/topology_gpus", gpus);
  t += summary_row("GPUs", fmt::format("{:.0f} × {}", gpus, escape(d.text("/gpu"))),
                   topo != gpus ? fmt::format("of the topology's {:.0f}", topo) : "");
  t += summary_row("micro-batches per pipeline", fixed(d.number("/micro_batches"), 0), "");
  t += summary_row(defined("iteration time", "iteration"),
                   "<span class=\"iteration-time\">" + fixed(d.number("/iteration_time_s"), 4) + "</span>", "s");
  t += summary_row(defined("throughput", "tokens"), fixed(d.number("/tokens_per_s"), 0), "tokens/s");
  t += summary_row(defined("model TFLOP/s per GPU", "tflops"), fixed(d.number("/tflops_per_gpu"), 1), "TFLOP/s");
  t += summary_row(defined("hardware TFLOP/s per GPU", "tflops"), fixed(d.number("/hw_tflops_per_gpu"), 1),
                   "TFLOP/s (recompute included)");
  t += summary_row(defined("MFU", "mfu"), "<span class=\"mfu\">" + percent(d.number("/mfu")) + "</span>", "%");
  t += summary_row(defined("HFU", "hfu"), percent(d.number("/hfu")), "%");
  t += summary_row(defined("pipeline bubble", "bubble"), percent(d.number("/bubble_fraction"), 2),
                   "% of the iteration (mean over stages)");
  t += summary_row(defined("bubble overhead", "bubble"), percent(d.number("/bubble_overhead"), 2),
                   "% of compute (mean over stages)");
  t += summary_row(defined("communication overlap", "overlap"), percent(d.number("/overlap_fraction")),
                   "% of communication hidden under compute");
  for (const char* dim : kDims)
    t += summary_row(defined(fmt::format("exposed {} communication", dim), "exposed"),
                     fixed(d.number(fmt::format("/exposed_comm_s/{}", dim)), 4), "s per iteration (mean per rank)");
  const double peak = d.number("/memory_peak_bytes"), hbm = d.number("/hbm_capacity_bytes");
  const double share = hbm > 0 ? peak / hbm : 0;
  t += summary_row(defined("memory peak", "memory"),
                   fmt::format("{} <span class=\"bar{}\" style=\"width:{:.0f}px\" title=\"{} % of HBM\"></span>",
                               gb(peak), share > 1 ? " over" : "", 80 * std::min(share, 1.5), percent(share)),
                   fmt::format("GB of {} GB HBM ({} %)", gb(hbm), percent(share)));
  const bool oom = d.boolean("/oom");
  t += summary_row(defined("out of memory", "memory"), oom ? "yes" : "no", oom ? "the plan does not fit" : "",
                   oom ? "bad" : "good");
  return t + "</tbody></table>\n";
}

std::string stage_table(const ReportDocument& d) {
  std::string t =
      "<table class=\"stages\"><thead><tr><th>stage</th><th class=\"num\">rank</th>"
      "<th class=\"num\">" +
      defined("bubble", "bubble") + " (%)</th><th class=\"num\">" + defined("overhead", "bubble") +
      " (%)</th><th class=\"num\">compute busy (s)</th>"
      "<th class=\"num\">in flight</th><th class=\"num\">" +
      defined("weights", "memory") +
      " (GB)</th><th class=\"num\">gradients (GB)</th><th class=\"num\">optimizer (GB)</th>"
      "<th class=\"num\">activations (GB)</th><th class=\"num\">temporary (GB)</th>"
      "<th class=\"num\">total (GB)</th><th>OOM</th></tr></thead><tbody>\n";
  const size_t n = d.array_size("/stages");
  for (size_t i = 0; i < n; ++i) {
    const std::string s = fmt::format("/stages/{}", i);
    const bool oom = d.boolean(s + "/oom");
    t += fmt::format(
        "<tr{}><td>{:.0f}</td><td class=\"num\">{:.0f}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{:.0f}</td>",
        oom ? " class=\"bad\"" : "", d.number(s + "/stage"), d.number(s + "/rank"),
        percent(d.number(s + "/bubble_fraction"), 2), percent(d.number(s + "/bubble_overhead"), 2),
        fixed(d.number(s + "/compute_busy_s"), 4), d.number(s + "/peak_in_flight"));
    for (const char* part : {"weights", "gradients", "optimizer", "activations", "temporary", "total"})
      t += "<td class=\"num\">" + gb(d.number(fmt::format("{}/memory/{}_bytes", s, part))) + "</td>";
    t += fmt::format("<td>{}</td></tr>\n", oom ? "OOM" : "");
  }
  return t + "</tbody></table>\n";
}

struct PictureInfo {
  advise::PlanPicture picture;
  const char* name;
  const char* caption;
};

std::string pictures(const ReportDocument& d, const std::string& id, std::vector<std::string>& notes) {
  static const std::array<PictureInfo, 3> kPictures{{
      {advise::PlanPicture::timeline, "timeline",
       "Timeline: the pipeline schedule per stage over one iteration (time in seconds): forward, backward and "
       "weight-gradient chunks per micro-batch, the gaps are the pipeline bubble; communication beneath."},
      {advise::PlanPicture::memory, "memory",
       "Memory per stage (GB per GPU): weights, gradients, optimizer states, activations and temporary "
       "buffers stacked, against the GPU's HBM capacity."},
      {advise::PlanPicture::breakdown, "breakdown",
       "Breakdown per stage (seconds of the iteration): compute, exposed communication per dimension and "
       "the pipeline bubble."},
  }};
  YAML::Node report;
  std::string left_out;
  {
    nlohmann::json copy = d.root();
    if (copy.contains("ops") && copy["ops"].is_array() && copy["ops"].size() > kMaxPictureOps) {
      left_out = fmt::format("the report's {} per-op records are more than the {} the pictures read",
                             copy["ops"].size(), kMaxPictureOps);
      copy.erase("ops");
    }
    report = to_yaml(copy);
  }
  std::string out;
  for (const PictureInfo& p : kPictures) {
    const std::string anchor = fmt::format("{}-{}", id, p.name);
    out += fmt::format("<figure id=\"{}\" class=\"picture\">\n", anchor);
    try {
      const std::string svg = inline_svg(advise::plan_picture_svg(p.picture, report), anchor + "-");
      if (svg.empty()) throw ConfigError(SourcePos{"gnuplot", 0, 0}, "the picture is not an SVG document");
      out += svg + "\n";
    } catch (const ConfigError& e) {
      const std::string why = e.what() + (left_out.empty() ? "" : " (" + left_out + ")");
      out += note_box(fmt::format("The {} picture could not be drawn: {}", p.name, escape(why)));
      notes.push_back(fmt::format("{}: the {} picture could not be drawn: {}", d.name(), p.name, why));
    }
    out += fmt::format("<figcaption>{}</figcaption>\n</figure>\n", escape(p.caption));
  }
  return out;
}

std::string calibration(const ReportDocument& d) {
  if (!d.has("/calibration")) return "";
  std::string t = "<h3>Calibration</h3>\n";
  const size_t n = d.array_size("/calibration/profiles");
  if (n == 0) {
    t += "<p>No profile: the built-in defaults (Definitions in plansim's README).</p>\n";
  } else {
    t += "<table><thead><tr><th>origin</th><th>profile</th><th>file</th><th>source</th></tr></thead><tbody>\n";
    for (size_t i = 0; i < n; ++i) {
      const std::string p = fmt::format("/calibration/profiles/{}", i);
      t += fmt::format("<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n",
                       escape(d.text(p + "/origin")), escape(d.text(p + "/name")), escape(d.text(p + "/file")),
                       escape(d.text(p + "/source")));
    }
    t += "</tbody></table>\n";
  }
  return t + fmt::format("<p>Collective parameters from: {}</p>\n",
                         escape(d.text_or("/calibration/collectives_from", "defaults")));
}

std::string symmetry(const ReportDocument& d) {
  if (!d.has("/symmetry")) return "";
  std::string t = "<h3>" + defined("Symmetry", "symmetry") + "</h3>\n<table><tbody>\n";
  for (const auto& [k, v] : d.object("/symmetry").items())
    t += summary_row(escape(k), escape(v.is_string() ? v.get<std::string>() : v.dump()), "");
  return t + "</tbody></table>\n";
}

}  // namespace

std::string run_section(const ReportDocument& d, const std::string& id, std::vector<std::string>& notes) {
  std::string out = fmt::format(
      "<section id=\"{}\" class=\"run\">\n<h2><span class=\"kind\">run</span>{}</h2>\n"
      "<p class=\"source\">From <code>{}</code> (<code>plansim run --json</code>).</p>\n",
      id, escape(d.text("/name")), escape(d.name()));
  out += "<h3>Summary</h3>\n" + summary(d);
  out += "<h3>Per stage</h3>\n" + stage_table(d);
  out += "<h3>Pictures</h3>\n" + pictures(d, id, notes);
  const std::string note = d.text_or("/notes", "");
  out += "<h3>Notes</h3>\n" +
         (note.empty() ? std::string("<p>None.</p>\n") : "<p class=\"notes\">" + escape(note) + "</p>\n");
  out += calibration(d) + symmetry(d);
  return out + "</section>\n";
}

}  // namespace plansim::html
