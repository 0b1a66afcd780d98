// The section of a `plansim validate --json` result: simulated against measured per op class (--sim and
// --measured), or predicted against published runs per run and per data set (--runs).
#include <fmt/format.h>

#include "sim/report/html_page.hpp"
#include "sim/report/html_writer.hpp"

namespace plansim::html {
namespace {

// A signed relative error as a percentage with its sign.
std::string signed_percent(double fraction) { return fmt::format("{:+.1f}", 100 * fraction); }

// Two horizontal bars, simulated over measured, scaled to the larger: an inline SVG of fixed size.
std::string pair_bars(double sim, double measured) {
  const double top = std::max(sim, measured);
  if (!(top > 0)) return "";
  const double ws = 160 * sim / top, wm = 160 * measured / top;
  return fmt::format(
      "<svg width=\"164\" height=\"22\" role=\"img\" aria-label=\"simulated {:.4g} s, measured {:.4g} s\">"
      "<rect x=\"0\" y=\"1\" width=\"{:.1f}\" height=\"9\" fill=\"#4a72d8\"><title>simulated</title></rect>"
      "<rect x=\"0\" y=\"12\" width=\"{:.1f}\" height=\"9\" fill=\"#9aa3b2\"><title>measured</title></rect>"
      "</svg>",
      sim, measured, ws, wm);
}

std::string classes(const ReportDocument& d, const std::string& id) {
  const double tol = d.number("/tolerance");
  const bool ok = d.boolean("/within_tolerance");
  std::string out = fmt::format(
      "<section id=\"{}\" class=\"validate\">\n<h2><span class=\"kind\">validate</span>simulated vs measured</h2>\n"
      "<p class=\"source\">From <code>{}</code> (<code>plansim validate --sim {} --measured {} --json</code>).</p>\n",
      id, escape(d.name()), escape(d.text("/sim")), escape(d.text("/measured")));
  out += "<table class=\"summary\"><tbody>\n";
  out += summary_row(defined("end-to-end error", "validate-rel"), signed_percent(d.number("/end_to_end_rel")),
                     "% of the measured iteration time", std::abs(d.number("/end_to_end_rel")) > tol ? "bad" : "good");
  out += summary_row("tolerance", percent(tol), "% (iteration time and each class median)");
  out += summary_row("verdict", ok ? "within tolerance" : "beyond tolerance", "", ok ? "good" : "bad");
  out += summary_row(
      "unmatched ops",
      fmt::format("{:.0f} simulated, {:.0f} measured", d.number("/unmatched_sim"), d.number("/unmatched_measured")),
      "");
  out +=
      "</tbody></table>\n<h3>Per op class</h3>\n<table><thead><tr><th>class</th><th class=\"num\">ops</th>"
      "<th class=\"num\">simulated (s)</th><th class=\"num\">measured (s)</th><th>simulated / measured</th>"
      "<th class=\"num\">" +
      defined("median |error|", "validate-rel") +
      " (%)</th><th class=\"num\">max |error| (%)</th>"
      "</tr></thead><tbody>\n";
  for (const auto& [name, c] : d.object("/classes").items()) {
    const std::string p = "/classes/" + json_pointer_token(name);
    const double median = d.number(p + "/median_abs_rel");
    out += fmt::format(
        "<tr{}><td>{}</td><td class=\"num\">{:.0f}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        median > tol ? " class=\"bad\"" : "", escape(name), d.number(p + "/ops"),
        fixed(d.number(p + "/sim_total_s"), 5), fixed(d.number(p + "/measured_total_s"), 5),
        pair_bars(d.number(p + "/sim_total_s"), d.number(p + "/measured_total_s")), percent(median),
        percent(d.number(p + "/max_abs_rel")));
  }
  return out +
         "</tbody></table>\n<p class=\"source\">Bars: simulated (blue) over measured (grey) class totals per "
         "iteration, in seconds, scaled to the larger of the two.</p>\n</section>\n";
}

std::string stats_row(const ReportDocument& d, const std::string& p, const std::string& label) {
  return fmt::format(
      "<tr><td>{}</td><td class=\"num\">{:.0f}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
      "<td class=\"num\">{}</td></tr>\n",
      label, d.number(p + "/runs"), percent(d.number(p + "/mape")), percent(d.number(p + "/max_abs")),
      signed_percent(d.number(p + "/bias")));
}

std::string runs(const ReportDocument& d, const std::string& id) {
  std::string out = fmt::format(
      "<section id=\"{}\" class=\"validate\">\n<h2><span class=\"kind\">validate</span>published runs</h2>\n"
      "<p class=\"source\">From <code>{}</code> (<code>plansim validate --runs ... --json</code>). Error = "
      "(predicted − published) / published throughput.</p>\n",
      id, escape(d.name()));
  for (size_t f = 0, nf = d.array_size("/files"); f < nf; ++f) {
    const std::string p = fmt::format("/files/{}", f);
    out += fmt::format("<h3>{} <span class=\"source\">({}; calibration: {})</span></h3>\n", escape(d.text(p + "/file")),
                       escape(d.text(p + "/gpu")), escape(d.text(p + "/calibration")));
    out += "<table><thead><tr><th>data set</th><th class=\"num\">runs</th><th class=\"num\">" +
           defined("MAPE", "mape") +
           " (%)</th><th class=\"num\">max |error| (%)</th><th class=\"num\">bias (%)</th></tr></thead><tbody>\n";
    for (const auto& [name, s] : d.object(p + "/datasets").items())
      out += stats_row(d, p + "/datasets/" + json_pointer_token(name), escape(name));
    out += stats_row(d, p + "/all", "<strong>all</strong>") + "</tbody></table>\n";
    out +=
        "<table><thead><tr><th>run</th><th>data set</th><th class=\"num\">published (s)</th>"
        "<th class=\"num\">predicted (s)</th><th class=\"num\">" +
        defined("error", "mape") + " (%)</th><th>OOM</th></tr></thead><tbody>\n";
    for (size_t r = 0, nr = d.array_size(p + "/runs"); r < nr; ++r) {
      const std::string q = fmt::format("{}/runs/{}", p, r);
      const bool oom = d.boolean(q + "/oom");
      out += fmt::format(
          "<tr{}><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td>{}</td></tr>\n",
          oom ? " class=\"bad\"" : "", escape(d.text(q + "/name")), escape(d.text(q + "/dataset")),
          fixed(d.number(q + "/measured_iteration_s"), 3), fixed(d.number(q + "/predicted_iteration_s"), 3),
          signed_percent(d.number(q + "/throughput_error")), oom ? "OOM" : "");
    }
    out += "</tbody></table>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string validate_section(const ReportDocument& d, const std::string& id) {
  return d.kind() == ReportKind::validate_runs ? runs(d, id) : classes(d, id);
}

}  // namespace plansim::html
