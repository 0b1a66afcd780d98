// The section of a `plansim lint --json` result: the plan's figures, then each finding with its fix and
// the fix's measured cost.
#include <fmt/format.h>

#include "sim/report/html_page.hpp"
#include "sim/report/html_writer.hpp"

namespace plansim::html {
namespace {

std::string base_table(const ReportDocument& d) {
  std::string t = "<table class=\"summary\"><tbody>\n";
  t += summary_row(defined("iteration time", "iteration"), fixed(d.number("/base/iteration_s"), 4), "s");
  t += summary_row(defined("throughput", "tokens"), fixed(d.number("/base/tokens_per_s"), 0), "tokens/s");
  t += summary_row(defined("MFU", "mfu"), percent(d.number("/base/mfu")), "%");
  t += summary_row(defined("pipeline bubble", "bubble"), percent(d.number("/base/bubble_fraction"), 2),
                   "% of the iteration");
  t += summary_row(defined("memory peak", "memory"), fixed(d.number("/base/memory_peak_GiB"), 2),
                   fmt::format("GiB of {} GiB HBM", fixed(d.number("/base/hbm_capacity_GiB"), 2)));
  const bool oom = d.boolean("/base/oom");
  t += summary_row(defined("out of memory", "memory"), oom ? "yes" : "no", "", oom ? "bad" : "good");
  return t + "</tbody></table>\n";
}

std::string finding(const ReportDocument& d, size_t i) {
  const std::string f = fmt::format("/findings/{}", i);
  std::string rules;
  for (size_t r = 0, n = d.array_size(f + "/rules"); r < n; ++r)
    rules += (r ? ", " : "") + ("<code class=\"rule\">" + escape(d.text(fmt::format("{}/rules/{}", f, r))) + "</code>");
  std::string out = fmt::format("<h4>{}. {}</h4>\n<table class=\"finding\"><tbody>\n", i + 1, rules);
  out += text_row("what", escape(d.text(f + "/what")));
  out += text_row("where", escape(d.text(f + "/where")));
  out += text_row("why", escape(d.text(f + "/why")));
  std::string fix;
  for (size_t k = 0, n = d.array_size(f + "/fix"); k < n; ++k)
    fix += (k ? " " : "") + ("<code>--set " + escape(d.text(fmt::format("{}/fix/{}", f, k))) + "</code>");
  if (d.boolean(f + "/fix_found")) {
    out += text_row("fix", fix);
    out += summary_row(
        defined("measured cost", "lint-cost"),
        fmt::format("<span class=\"saved\">{}</span>", fixed(d.number(f + "/saved_s"), 4)),
        fmt::format("s per iteration ({} % of it) saved by the fix", percent(d.number(f + "/saved_fraction"))), "bad");
    out += summary_row(defined("tokens/s gain", "lint-cost"), fixed(d.number(f + "/tokens_per_s_gain"), 0), "tokens/s");
    out += summary_row("fixed plan", fixed(d.number(f + "/fixed/iteration_s"), 4),
                       fmt::format("s per iteration, MFU {} %, memory peak {} GiB", percent(d.number(f + "/fixed/mfu")),
                                   fixed(d.number(f + "/fixed/memory_peak_GiB"), 2)));
  } else {
    out += text_row("fix", "none found: no candidate fix was valid and fitted in memory");
  }
  return out + "</tbody></table>\n";
}

}  // namespace

std::string lint_section(const ReportDocument& d, const std::string& id) {
  const size_t n = d.array_size("/findings");
  std::string out = fmt::format(
      "<section id=\"{}\" class=\"lint\">\n<h2><span class=\"kind\">lint</span>{}</h2>\n"
      "<p class=\"source\">From <code>{}</code> (<code>plansim lint --json</code>).</p>\n",
      id, escape(d.text("/scenario")), escape(d.name()));
  out += "<h3>The plan as given</h3>\n" + base_table(d);
  out += fmt::format("<h3>Findings ({})</h3>\n", n);
  if (n == 0) out += "<p>No anti-pattern found.</p>\n";
  for (size_t i = 0; i < n; ++i) out += finding(d, i);
  return out + "</section>\n";
}

}  // namespace plansim::html
