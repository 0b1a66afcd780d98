#include "sim/report/html_page.hpp"

#include <fmt/format.h>

#include "sim/report/html_writer.hpp"

namespace plansim::html {
namespace {

// The page's only style sheet: readable tables, figures scaled to the column, print-friendly.
constexpr const char* kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0 auto;max-width:1100px;
padding:1.5em;color:#1d2330;background:#fff;line-height:1.45}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.3em;border-bottom:2px solid #d8dde6;padding-bottom:.2em;margin-top:2em}
h3{font-size:1.08em;margin:1.4em 0 .4em}
.source{color:#5a6475;font-size:.9em}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.92em}
th,td{padding:.25em .6em;border-bottom:1px solid #e4e7ed;text-align:left;vertical-align:top}
thead th{background:#f2f4f8;border-bottom:2px solid #d8dde6}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}td.unit{color:#5a6475}
tr.bad td,tr.bad th,td.bad{color:#b00020;font-weight:600}tr.good td.num{color:#0a6b2d}
figure{margin:1em 0 1.6em;border:1px solid #e4e7ed;padding:.6em;border-radius:4px}
figure svg{max-width:100%;height:auto;display:block}figcaption{font-size:.9em;color:#3b4352;margin-top:.4em}
.note{background:#fff6e0;border-left:4px solid #e0a000;padding:.5em .8em}
.kind{display:inline-block;font-size:.75em;background:#e8eefc;color:#23408e;border-radius:3px;padding:.05em .4em;
vertical-align:middle;margin-right:.4em}
a.def{color:inherit;text-decoration:underline dotted}code{font-size:.92em;background:#f4f5f7;padding:0 .2em}
.bar{display:inline-block;height:.8em;background:#4a72d8;vertical-align:middle}.bar.over{background:#b00020}
dl dt{font-weight:600;margin-top:.6em}dl dd{margin-left:1.2em}nav ul{padding-left:1.2em}
@media print{body{max-width:none}figure{break-inside:avoid}}
)";

std::string heading_of(const ReportDocument& d) {
  switch (d.kind()) {
    case ReportKind::run:
      return d.text_or("/name", "run");
    case ReportKind::lint:
      return d.text_or("/scenario", "lint");
    case ReportKind::validate_classes:
      return "simulated vs measured";
    case ReportKind::validate_runs:
      return "published runs";
  }
  return "";
}

}  // namespace

Page report_page(const std::vector<ReportDocument>& docs, const std::string& title) {
  Page page;
  std::string page_title = title;
  if (page_title.empty()) {
    for (size_t i = 0; i < docs.size() && i < 2; ++i) page_title += (i ? ", " : "") + heading_of(docs[i]);
    if (docs.size() > 2) page_title += fmt::format(" and {} more", docs.size() - 2);
    page_title = "plansim report: " + page_title;
  }
  std::string body;
  std::string nav;
  for (size_t i = 0; i < docs.size(); ++i) {
    const std::string id = fmt::format("s{}", i + 1);
    const ReportDocument& d = docs[i];
    nav += fmt::format("<li><a href=\"#{}\">{}</a> <span class=\"source\">({} · {})</span></li>\n", id,
                       escape(heading_of(d)), to_string(d.kind()), escape(d.name()));
    switch (d.kind()) {
      case ReportKind::run:
        body += run_section(d, id, page.notes);
        break;
      case ReportKind::lint:
        body += lint_section(d, id);
        break;
      case ReportKind::validate_classes:
      case ReportKind::validate_runs:
        body += validate_section(d, id);
        break;
    }
  }
  page.html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      escape(page_title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<header><h1>" +
      escape(page_title) + "</h1>\n<p class=\"source\">Written by <code>plansim report</code> from " +
      fmt::format("{} document{}", docs.size(), docs.size() == 1 ? "" : "s") +
      ". Every figure links its definition (bottom of the page).</p>\n<nav><ul>\n" + nav +
      "</ul></nav></header>\n<main>\n" + body + definitions_section() + "</main>\n</body>\n</html>\n";
  return page;
}

Page report_page(const std::vector<std::filesystem::path>& files, const std::string& title) {
  std::vector<ReportDocument> docs;
  docs.reserve(files.size());
  for (const auto& f : files) docs.push_back(ReportDocument::load(f));
  return report_page(docs, title);
}

}  // namespace plansim::html
