// `plansim report JSON... [--out FILE] [--title T]`: one self-contained HTML page (inline CSS and SVG,
// no script, no URL) with a section per --json document of `plansim run`, `lint` or `validate`
// (README "plansim report"). Exit 0; 2 when a file is not such a document.
#include <cstdio>
#include <memory>

#include "sim/api/commands.hpp"
#include "sim/app/command.hpp"
#include "sim/report/html_page.hpp"

namespace plansim::app {
namespace {

struct ReportOptions {
  std::vector<std::string> files;
  std::string out = "-";
  std::string title;
};

}  // namespace

void write_html_page(const std::string& path, const std::string& json, const std::string& name) {
  const html::Page page = html::report_page({ReportDocument::parse(json, name)}, "");
  for (const auto& m : page.notes) std::fprintf(stderr, "plansim: %s\n", m.c_str());
  write_output(path, page.html);
}

Command add_report_command(CLI::App& app) {
  auto opt = std::make_shared<ReportOptions>();
  CLI::App* sub =
      app.add_subcommand("report", "one self-contained HTML page from run, lint and validate --json documents");
  sub->add_option("json", opt->files, "JSON documents of plansim run, lint or validate --json (a section each)")
      ->required();
  sub->add_option("-o,--out", opt->out, "write the page to FILE ('-' = stdout)")->capture_default_str();
  sub->add_option("--title", opt->title, "the page's title (default: from the documents' names)");
  return {sub, [opt] {
            check_output_path("--out", opt->out);
            const api::CommandResult r = api::report(opt->files, opt->title);
            for (const auto& m : r.messages) std::fprintf(stderr, "plansim report: %s\n", m.c_str());
            write_output(opt->out, r.text);
            return kExitOk;
          }};
}

}  // namespace plansim::app
