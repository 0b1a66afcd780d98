// `plansim plot KIND [SCENARIO...] --out FILE.svg|.png [--set k=v]... [--vary k=v1,..]... [--metric M]
//  [--topology T]... [--batches b1,b2,..] [-j N]`: figures through gnuplot (sim/advise/plot.hpp).
// Kinds: bubble, tp-placement, dp-scaling, busbw, lint, sweep; the pictures of one simulated run
// (advise/plan_pictures.hpp): timeline, memory, breakdown.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>

#include "sim/advise/plan_pictures.hpp"
#include "sim/advise/plot.hpp"
#include "sim/api/commands.hpp"
#include "sim/app/cli_numbers.hpp"
#include "sim/app/command.hpp"
#include "sim/core/limits.hpp"
#include "sim/io/checked_number.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/core/error.hpp"

namespace plansim::app {
namespace {

struct PlotCliOptions {
  std::string kind;
  std::vector<std::string> scenarios;
  std::string out;
  std::vector<std::string> sets;
  std::vector<std::string> vary;
  std::vector<std::string> topologies;
  std::string metric = "tokens_per_s";
  std::string batches = "8,16,32,64,128,256,512,1024";
  int jobs = 0;
};

std::filesystem::path one_scenario(const PlotCliOptions& o) {
  if (o.scenarios.size() != 1)
    throw ConfigError(SourcePos{"plot " + o.kind, 0, 0}, "this kind takes exactly one scenario file");
  return o.scenarios.front();
}

}  // namespace

Command add_plot_command(CLI::App& app) {
  auto opt = std::make_shared<PlotCliOptions>();
  CLI::App* sub = app.add_subcommand("plot", "figures (SVG/PNG via gnuplot): bubble, tp-placement, dp-scaling, busbw, lint, sweep; "
                                     "a run's timeline, memory, breakdown");
  sub->add_option("kind", opt->kind,
                  "bubble | tp-placement | dp-scaling | busbw | lint | sweep | timeline | memory | breakdown")
      ->required()
      ->check(CLI::IsMember({"bubble", "tp-placement", "dp-scaling", "busbw", "lint", "sweep", "timeline", "memory",
                             "breakdown"}));
  sub->add_option("scenarios", opt->scenarios, "scenario YAML file(s); busbw: nccl-tests tables (validate/nccl/*.yaml); timeline, memory, "
                  "breakdown: one scenario, simulated");
  sub->add_option("--out", opt->out, "output FILE.svg or FILE.png")->required();
  sub->add_option("--set", opt->sets, "override a scenario key (repeatable)");
  add_calibration_option(sub, opt->sets);  // after --set, whose callback assigns the list
  sub->add_option("--vary", opt->vary, "sweep: key.path=v1,v2,... (one or two)");
  sub->add_option("--metric", opt->metric, "sweep: the plotted metric (default tokens_per_s)");
  sub->add_option("--topology", opt->topologies, "tp-placement: topology YAML to compare (repeatable)");
  sub->add_option("--batches", opt->batches, "dp-scaling: global batches to simulate (comma-separated)");
  sub->add_option("-j,--jobs", opt->jobs, "parallel simulations (0 = hardware threads)")
      ->check(count_in(0, limits::kMaxJobs));
  return {sub, [opt] {
            using namespace advise;
            const int jobs = opt->jobs > 0 ? opt->jobs : default_jobs();
            check_output_path("--out", opt->out);
            PlotSpec spec;
            if (const auto picture = plan_picture_named(opt->kind)) {
              // The run's --json report, read back: the same document `plansim report` draws from.
              const bool ops = *picture == PlanPicture::timeline;
              PlanRun run = api::run({one_scenario(*opt).string(), opt->sets, true, ops});
              spec = plan_picture_spec(*picture, run_report_node(std::move(run.report)));
            } else if (opt->kind == "bubble") {
              std::vector<std::filesystem::path> s(opt->scenarios.begin(), opt->scenarios.end());
              spec = plot_bubble(s, jobs);
            } else if (opt->kind == "tp-placement") {
              if (opt->topologies.empty())
                throw ConfigError(SourcePos{"--topology", 0, 0}, "tp-placement needs at least one --topology");
              std::vector<std::filesystem::path> t(opt->topologies.begin(), opt->topologies.end());
              spec = plot_tp_placement(one_scenario(*opt), t, opt->sets, jobs);
            } else if (opt->kind == "dp-scaling") {
              std::vector<int64_t> b;
              for (const auto& v : parse_vary("batches=" + opt->batches, "--batches").values) {
                try {
                  b.push_back(io::integer_in(v, {1, limits::kMaxGlobalBatch}));
                } catch (const io::UnitError& e) {
                  throw ConfigError(SourcePos{"--batches", 0, 0}, fmt::format("'{}': {}", v, e.what()));
                }
              }
              spec = plot_dp_scaling(one_scenario(*opt), opt->sets, b, jobs);
            } else if (opt->kind == "busbw") {
              if (opt->scenarios.empty())
                throw ConfigError(SourcePos{"plot busbw", 0, 0}, "give nccl-tests tables, e.g. validate/nccl/*.yaml");
              spec = plot_busbw(std::vector<std::filesystem::path>(opt->scenarios.begin(), opt->scenarios.end()));
            } else if (opt->kind == "lint") {
              LintOptions o;
              o.sets = opt->sets;
              o.jobs = jobs;
              spec = plot_lint(run_lint(one_scenario(*opt), o));
            } else {
              SweepResult r;
              for (const auto& v : opt->vary) {
                r.keys.push_back(parse_vary(v));
                check_scenario_key(r.keys.back());
              }
              if (r.keys.empty() || r.keys.size() > 2)
                throw ConfigError(SourcePos{"--vary", 0, 0}, "a sweep plot takes one or two --vary keys");
              check_scenario_file(one_scenario(*opt), opt->sets);
              r.points = run_points(one_scenario(*opt), opt->sets, cartesian(r.keys), jobs);
              rethrow_if_all_invalid_alike(r.points);
              spec = plot_sweep(r, opt->metric);
            }
            const std::string note = render_plot(spec, opt->out);
            if (!note.empty()) {
              spdlog::warn("{}", note);
              return kExitFindings;
            }
            spdlog::info("wrote {}", opt->out);
            return kExitOk;
          }};
}

}  // namespace plansim::app
