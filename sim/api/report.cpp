#include <filesystem>

#include "sim/api/commands.hpp"
#include "sim/report/html_page.hpp"

namespace plansim::api {

CommandResult report(const std::vector<std::string>& files, const std::string& title) {
  if (files.empty()) throw ConfigError(SourcePos{"plansim report", 0, 0}, "give at least one JSON document");
  const std::vector<std::filesystem::path> paths(files.begin(), files.end());
  html::Page page = html::report_page(paths, title);
  return CommandResult{0, std::move(page.html), "", std::move(page.notes)};
}

}  // namespace plansim::api
