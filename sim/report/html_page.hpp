#pragma once
// `plansim report`: one self-contained HTML page (inline CSS and SVG, no script, no URL) with a section
// per JSON document of `plansim run|lint|validate --json` (README "plansim report").
#include <filesystem>
#include <string>
#include <vector>

#include "sim/report/report_document.hpp"

namespace plansim::html {

struct Page {
  std::string html;
  std::vector<std::string> notes;  // what could not be drawn (also said in the page), one line each
};

// The page for `docs` in order; `title` "" = one made from the documents' names.
Page report_page(const std::vector<ReportDocument>& docs, const std::string& title);
// Loads each file (ConfigError at file:line:col when one is not such a document) and builds the page.
Page report_page(const std::vector<std::filesystem::path>& files, const std::string& title);

// One section each (html_run_section.cpp, html_lint_section.cpp, html_validate_section.cpp); `id` is the
// section's anchor and the prefix of every id inside it. Notes for the user are appended to `notes`.
std::string run_section(const ReportDocument& doc, const std::string& id, std::vector<std::string>& notes);
std::string lint_section(const ReportDocument& doc, const std::string& id);
std::string validate_section(const ReportDocument& doc, const std::string& id);

}  // namespace plansim::html
