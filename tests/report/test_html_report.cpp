// `plansim report` (report/html_page.hpp): kind detection and its errors, escaping, a section per
// document, pictures inlined with ids unique per picture, and a page that names no URL.
#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <regex>
#include <set>
#include <string>

#include "sim/api/commands.hpp"
#include "sim/report/html_page.hpp"
#include "sim/report/html_writer.hpp"
#include "sim/report/report.hpp"
#include "sim/report/report_document.hpp"

using namespace plansim;

namespace {

// A run report as `plansim run --json` writes it, two stages, no per-op records; `name` goes in verbatim.
std::string tiny_run_json(const std::string& name_json) {
  std::string stages;
  for (int s = 0; s < 2; ++s)
    stages += fmt::format(R"({}{{"stage": {}, "rank": {}, "bubble_fraction": 0.1, "bubble_overhead": 0.12,
      "compute_busy_s": 0.8, "flush_window_s": 0.9, "peak_in_flight": 2, "peak_awaiting_b": 2,
      "activation_peak": {{"awaiting_b": 2, "awaiting_w": 0}},
      "memory": {{"weights_bytes": 1e9, "gradients_bytes": 1e9, "optimizer_bytes": 2e9, "activations_bytes": 3e9,
                  "temporary_bytes": 1e8, "total_bytes": 7.1e9}}, "oom": false}})",
                          s ? ",\n" : "", s, 4 * s);
  return fmt::format(R"({{
  "name": {}, "gpu": "H100", "gpus": 8, "topology_gpus": 8, "micro_batches": 4,
  "iteration_time_s": 1.2345, "tokens_per_s": 52000, "tflops_per_gpu": 401.5, "hw_tflops_per_gpu": 420.0,
  "mfu": 0.4056, "hfu": 0.42, "bubble_fraction": 0.1, "bubble_overhead": 0.12, "overlap_fraction": 0.7,
  "exposed_comm_s": {{"tp": 0.01, "cp": 0, "ep": 0, "dp": 0.02, "pp": 0.003}},
  "memory_peak_bytes": 7.1e9, "hbm_capacity_bytes": 80e9, "oom": false,
  "stages": [{}],
  "notes": "a <note> & more",
  "calibration": {{"profiles": [], "collectives_from": "defaults"}},
  "symmetry": {{"tp_folding": true, "executed_ranks": 2}}
}}
)",
                     name_json, stages);
}

std::string lint_json_text() {
  return R"({"scenario": "bubbly", "base": {"iteration_s": 2.0, "tokens_per_s": 1000, "mfu": 0.3,
  "bubble_fraction": 0.4, "bubble_overhead": 0.6, "exposed_comm_s": {"tp": 0, "cp": 0, "ep": 0, "dp": 0, "pp": 0},
  "memory_peak_GiB": 40, "hbm_capacity_GiB": 80, "oom": false, "world": 8, "micro_batches": 4},
  "findings": [{"rules": ["pipeline_bubble"], "what": "bubble 40 %", "where": "every stage", "why": "m < 4p",
  "fix": ["training.micro_batch=1"], "fix_found": true,
  "fixed": {"iteration_s": 1.5, "tokens_per_s": 1333, "mfu": 0.4, "bubble_fraction": 0.1, "bubble_overhead": 0.1,
  "exposed_comm_s": {"tp": 0, "cp": 0, "ep": 0, "dp": 0, "pp": 0}, "memory_peak_GiB": 30, "hbm_capacity_GiB": 80,
  "oom": false, "world": 8, "micro_batches": 16}, "saved_s": 0.5, "saved_fraction": 0.25, "tokens_per_s_gain": 333}]}
)";
}

std::string validate_json_text() {
  return R"({"sim": "s.json", "measured": "m.json", "end_to_end_rel": -0.05, "classes": {"gemm": {"ops": 10,
  "median_abs_rel": 0.04, "max_abs_rel": 0.09, "sim_total_s": 0.5, "measured_total_s": 0.52}},
  "unmatched_sim": 0, "unmatched_measured": 1, "tolerance": 0.1, "within_tolerance": true})";
}

std::string validate_runs_json_text() {
  return R"({"files": [{"file": "validate/h100/runs.yaml", "gpu": "H100", "calibration": "none",
  "runs": [{"name": "run a", "dataset": "mlperf/x", "measured_iteration_s": 1.0, "predicted_iteration_s": 0.9,
  "oom": false, "throughput_error": 0.11}],
  "datasets": {"mlperf/x": {"runs": 1, "mape": 0.11, "max_abs": 0.11, "bias": 0.11}},
  "all": {"runs": 1, "mape": 0.11, "max_abs": 0.11, "bias": 0.11}}]})";
}

std::string error_of(const std::string& text, const std::string& name = "doc.json") {
  try {
    (void)ReportDocument::parse(text, name);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool has_url(const std::string& html) { return std::regex_search(html, std::regex("https?://|//[a-z0-9]+\\.")); }

}  // namespace

TEST_CASE("report documents: the kind is told by the shape", "[report][html]") {
  CHECK(ReportDocument::parse(tiny_run_json("\"x\""), "r.json").kind() == ReportKind::run);
  CHECK(ReportDocument::parse(lint_json_text(), "l.json").kind() == ReportKind::lint);
  CHECK(ReportDocument::parse(validate_json_text(), "v.json").kind() == ReportKind::validate_classes);
  CHECK(ReportDocument::parse(validate_runs_json_text(), "v.json").kind() == ReportKind::validate_runs);
}

TEST_CASE("report documents: anything else is refused at file:line:col", "[report][html]") {
  CHECK(error_of("[1, 2]") ==
        "doc.json:1:1: the document is a list: expected the --json of `plansim run` "
        "(iteration_time_s, stages), `plansim lint` (base, findings) or `plansim validate` "
        "(classes, or files of runs)");
  CHECK_THAT(error_of("{\"points\": []}"), Catch::StartsWith("doc.json:1:1: not a document plansim report knows"));
  CHECK_THAT(error_of("{\"iteration_lower_bound_ms\": 3}"), Catch::Contains("--bound"));
  CHECK_THAT(error_of("  \n"), Catch::StartsWith("doc.json:1:1: the document is empty"));
  // A syntax error at its line and column.
  CHECK_THAT(error_of("{\n  \"a\": 1,\n  \"b\" 2\n}"), Catch::StartsWith("doc.json:3:7: not valid JSON"));
}

TEST_CASE("report documents: a wrong field is reported where it is", "[report][html]") {
  std::string text = tiny_run_json("\"x\"");
  text.replace(text.find("\"mfu\": 0.4056"), 13, "\"mfu\": \"high\"");
  const ReportDocument d = ReportDocument::parse(text, "r.json");
  try {
    (void)html::report_page({d}, "");
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) == "r.json:4:10: '/mfu' must be a number, not a string");
  }
  CHECK(d.pos("/stages/1/memory/optimizer_bytes").to_string() == "r.json:15:83");  // the second stage's
  CHECK(d.pos("/no/such").line == 1);                                              // falls back to the document
  // A missing key: at its parent.
  std::string missing = tiny_run_json("\"x\"");
  missing.replace(missing.find("\"hfu\": 0.42, "), 13, "");
  CHECK_THROWS_WITH(html::report_page({ReportDocument::parse(missing, "r.json")}, ""),
                    "r.json:1:1: run report: '/hfu' is missing (expected a number)");
}

TEST_CASE("report page: text from the documents is escaped", "[report][html]") {
  const std::string evil = R"("<script>alert('x')</script> & \"q\"")";
  const html::Page p = html::report_page({ReportDocument::parse(tiny_run_json(evil), "r<1>.json")}, "a <b> title");
  CHECK(p.html.find("<script>") == std::string::npos);
  CHECK(p.html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;") != std::string::npos);
  CHECK(p.html.find("r&lt;1&gt;.json") != std::string::npos);
  CHECK(p.html.find("<title>a &lt;b&gt; title</title>") != std::string::npos);
  CHECK(p.html.find("a &lt;note&gt; &amp; more") != std::string::npos);
  CHECK(html::escape("a&b<c>\"'") == "a&amp;b&lt;c&gt;&quot;&#39;");
}

TEST_CASE("report page: a section per document, in order, self-contained", "[report][html]") {
  const html::Page p = html::report_page(
      {ReportDocument::parse(tiny_run_json("\"first\""), "r.json"), ReportDocument::parse(lint_json_text(), "l.json"),
       ReportDocument::parse(validate_json_text(), "v.json"),
       ReportDocument::parse(validate_runs_json_text(), "w.json")},
      "");
  const size_t s1 = p.html.find("<section id=\"s1\" class=\"run\">");
  const size_t s2 = p.html.find("<section id=\"s2\" class=\"lint\">");
  const size_t s3 = p.html.find("<section id=\"s3\" class=\"validate\">");
  const size_t s4 = p.html.find("<section id=\"s4\" class=\"validate\">");
  REQUIRE(s1 != std::string::npos);
  CHECK(s1 < s2);
  CHECK(s2 < s3);
  CHECK(s3 < s4);
  CHECK(s4 != std::string::npos);
  CHECK(p.html.find("<span class=\"iteration-time\">1.2345</span>") != std::string::npos);
  CHECK(p.html.find("<span class=\"mfu\">40.6</span>") != std::string::npos);
  CHECK(p.html.find("<code class=\"rule\">pipeline_bubble</code>") != std::string::npos);
  CHECK(p.html.find("<span class=\"saved\">0.5000</span>") != std::string::npos);
  CHECK(p.html.find("mlperf/x") != std::string::npos);
  CHECK(p.html.find("<dt id=\"def-mfu\">") != std::string::npos);  // the definitions the figures link
  CHECK(p.html.find("href=\"#def-mfu\"") != std::string::npos);
  CHECK_FALSE(has_url(p.html));
  CHECK(p.html.find("<script") == std::string::npos);
  CHECK(p.html.find(" src=") == std::string::npos);
  // No per-op records: the timeline cannot be drawn; the page says so and is still produced.
  CHECK(p.html.find("The timeline picture could not be drawn") != std::string::npos);
  REQUIRE_FALSE(p.notes.empty());
  CHECK_THAT(p.notes.front(), Catch::StartsWith("r.json: the timeline picture could not be drawn"));
}

TEST_CASE("report page: SVG inlined without its prolog, ids prefixed per picture", "[report][html]") {
  const std::string svg =
      "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"no\"?>\n"
      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/x.dtd\">\n"
      "<svg width=\"900\" height=\"540\" xmlns=\"http://www.w3.org/2000/svg\" "
      "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n<g id=\"gnuplot_canvas\">\n"
      "<defs><path id='gpPt1' d='M0 0'/><path id='gpPt10' d='M1 1'/><linearGradient id=\"grad\"/></defs>\n"
      "<use xlink:href='#gpPt1'/><use href='#gpPt10'/><rect fill=\"url(#grad)\"/></g></svg>\n";
  const std::string a = html::inline_svg(svg, "s1-memory-");
  CHECK(a.rfind("<svg width=\"900\" height=\"540\">", 0) == 0);
  CHECK_FALSE(has_url(a));
  CHECK(a.find("id=\"s1-memory-gnuplot_canvas\"") != std::string::npos);
  CHECK(a.find("xlink:href='#s1-memory-gpPt1'") != std::string::npos);
  CHECK(a.find("href='#s1-memory-gpPt10'") != std::string::npos);
  CHECK(a.find("url(#s1-memory-grad)") != std::string::npos);
  CHECK(a.find("'#gpPt") == std::string::npos);
  CHECK(html::inline_svg("no svg here", "x-").empty());
  // gnuplot's `mouse` option: an onload and a script naming gnuplot_svg.js; both dropped.
  const std::string mouse = html::inline_svg(
      "<svg onload=\"gnuplot_svg.Init(evt)\" width=\"9\">"
      "<script xlink:href=\"gnuplot_svg.js\"/><script>var x;</script>"
      "<g/></svg>",
      "p-");
  CHECK(mouse == "<svg width=\"9\"><g/></svg>");
  CHECK(html::inline_svg("<svg><script href=\"a.js\"/><g/></svg>", "p-") == "<svg><g/></svg>");
  // Two pictures on one page: no id twice.
  const std::string both = a + html::inline_svg(svg, "s1-timeline-");
  std::set<std::string> ids;
  const std::regex id_re("id=[\"']([^\"']+)[\"']");
  for (auto it = std::sregex_iterator(both.begin(), both.end(), id_re); it != std::sregex_iterator(); ++it)
    CHECK(ids.insert((*it)[1].str()).second);
  CHECK(ids.size() == 8);
}

TEST_CASE("report page: a simulated run with its ops, end to end", "[report][html]") {
  const PlanRun run =
      api::run({std::string(PLANSIM_SOURCE_DIR) + "/scenarios/seed-pipeline-4x16.yaml", {}, true, true});
  const html::Page p = html::report_page({ReportDocument::parse(report_json(run.report), "run.json"),
                                          ReportDocument::parse(report_json(run.report), "again.json")},
                                         "");
  CHECK(p.html.find(fmt::format("<span class=\"iteration-time\">{:.4f}</span>", run.report.iteration.seconds())) !=
        std::string::npos);
  // Every picture of both sections drawn (gnuplot is a build dependency) with ids of its own.
  CHECK(p.notes.empty());
  std::set<std::string> ids;
  const std::regex id_re("\\sid=[\"']([^\"']+)[\"']");
  size_t svgs = 0;
  for (size_t i = 0; (i = p.html.find("<svg", i)) != std::string::npos; ++i) ++svgs;
  CHECK(svgs == 6);
  for (auto it = std::sregex_iterator(p.html.begin(), p.html.end(), id_re); it != std::sregex_iterator(); ++it)
    CHECK(ids.insert((*it)[1].str()).second);
  CHECK_FALSE(has_url(p.html));
}

TEST_CASE("report: files that are not documents are refused", "[report][html]") {
  CHECK_THROWS_WITH(api::report({"no/such.json"}, ""), Catch::StartsWith("no/such.json: cannot open file"));
  CHECK_THROWS_WITH(api::report({}, ""), Catch::Contains("give at least one JSON document"));
  CHECK_THROWS_WITH(api::report({std::string(PLANSIM_SOURCE_DIR) + "/scenarios/seed-pipeline-4x16.yaml"}, ""),
                    Catch::Contains("seed-pipeline-4x16.yaml:1:1: not valid JSON"));
}

TEST_CASE("report documents: every value of the wrong type is refused at its own line", "[report][html]") {
  // Each scalar value of a run, lint and validate document in turn replaced by a list: the page is
  // either still made (a value the page does not read) or refused with a ConfigError on that line.
  for (const std::string& text :
       {tiny_run_json("\"x\""), lint_json_text(), validate_json_text(), validate_runs_json_text()}) {
    int refused = 0;
    for (size_t at = text.find(": "); at != std::string::npos; at = text.find(": ", at + 1)) {
      const size_t v = at + 2;
      if (text[v] == '{' || text[v] == '[') continue;
      const size_t end = text[v] == '"' ? text.find('"', v + 1) + 1 : text.find_first_of(",}\n", v);
      std::string bad = text;
      bad.replace(v, end - v, "[1]");
      const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(v), '\n'));
      try {
        (void)html::report_page({ReportDocument::parse(bad, "m.json")}, "");
      } catch (const ConfigError& e) {
        ++refused;
        INFO(e.what());
        CHECK(e.pos().line == line);
      }
    }
    CHECK(refused > 5);
  }
}
