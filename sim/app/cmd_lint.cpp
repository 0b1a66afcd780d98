// `plansim lint FILE [--set k=v]... [--threshold name=value]... [--json FILE] [--html FILE] [-j N]`: anti-patterns
// of a plan, each with its fix as --set overrides and the fix's cost measured by simulating it.
// Exit 0: no findings; 1: findings; 2: bad input.
#include <memory>

#include "sim/api/commands.hpp"
#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/core/limits.hpp"

namespace plansim::app {
namespace {

struct LintCliOptions {
  std::string file;
  std::vector<std::string> sets;
  std::vector<std::string> thresholds;
  std::string json;
  std::string html;
  int jobs = 0;
};

}  // namespace

Command add_lint_command(CLI::App& app) {
  auto opt = std::make_shared<LintCliOptions>();
  CLI::App* sub = app.add_subcommand("lint", "find plan anti-patterns; each fix's cost is measured by simulating it");
  sub->add_option("file", opt->file, "scenario YAML")->required();
  sub->add_option("--set", opt->sets, "override a scenario key, e.g. --set parallel.tp=4 (repeatable)");
  add_calibration_option(sub, opt->sets);  // after --set, whose callback assigns the list
  sub->add_option("--threshold", opt->thresholds, "override a rule threshold, e.g. --threshold bubble_overhead=0.5");
  sub->add_option("--json", opt->json, "write the findings as JSON to FILE ('-' = stdout, replacing the text)");
  sub->add_option("--html", opt->html, "write the findings as an HTML page to FILE (as plansim report)");
  sub->add_option("-j,--jobs", opt->jobs, "parallel simulations of candidate fixes (0 = hardware threads)")
      ->check(count_in(0, limits::kMaxJobs));
  return {sub, [opt] {
            check_output_path("--json", opt->json);
            check_output_path("--html", opt->html);
            const advise::LintResult r = api::lint(opt->file, opt->sets, opt->thresholds, opt->jobs);
            if (opt->json != "-") write_output("-", advise::lint_text(r));
            if (!opt->json.empty() || !opt->html.empty()) {
              const std::string json = advise::lint_json(r);
              if (!opt->json.empty()) write_output(opt->json, json);
              if (!opt->html.empty())
                write_html_page(opt->html, json, opt->json.empty() || opt->json == "-" ? opt->file : opt->json);
            }
            return r.findings.empty() ? kExitOk : kExitFindings;
          }};
}

}  // namespace plansim::app
