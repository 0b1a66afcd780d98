// `plansim run FILE [--set key.path=value]... [--scale-layers N] [--scale-batch N] [--json FILE]
// [--trace FILE [--trace-ranks R]] [--allow-oom] [--no-symmetry] [--bound] [--html FILE]`:
// simulate one training iteration of a scenario and report it; with --bound, print the proven lower
// bound on its iteration time instead (report/plan_bound.hpp: no simulation).
#include <spdlog/spdlog.h>

#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "sim/api/commands.hpp"
#include "sim/app/command.hpp"
#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/report/plan_bound.hpp"

namespace plansim::app {
namespace {

struct RunOptions {
  std::string file;
  std::vector<std::string> sets;
  std::string json;
  std::string html;
  std::string trace;
  std::string trace_ranks;
  bool allow_oom = false;
  bool no_symmetry = false;
  bool bound = false;
};

std::string bound_text(const std::string& name, const PlanBound& b) {
  return fmt::format(
      "{}\n  iteration time lower bound: {:.3f} ms  (proven: every op at its uncontended duration, longest path of "
      "the program DAG; not a simulation)\n  {} programs, {} ops, {} distinct transfers bounded in {:.3f} s\n",
      name, b.iteration.seconds() * 1e3, b.programs, b.ops, b.transfers, b.wall_seconds);
}

std::string bound_json(const std::string& name, const PlanBound& b) {
  nlohmann::ordered_json j;
  j["scenario"] = name;
  j["iteration_lower_bound_ms"] = b.iteration.seconds() * 1e3;
  j["kind"] = "lower bound (every op at its uncontended duration; longest path of the program DAG)";
  j["programs"] = b.programs;
  j["ops"] = b.ops;
  j["distinct_transfers"] = b.transfers;
  j["wall_s"] = b.wall_seconds;
  return j.dump(2) + "\n";
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "simulate a training plan: iteration time, MFU, bubble, overlap, memory");
  sub->add_option("file", opt->file, "scenario YAML (see scenarios/)")->required();
  sub->add_option("--set", opt->sets, "override a scenario key, e.g. --set training.micro_batch=2 (repeatable)");
  add_calibration_option(sub, opt->sets);  // after --set, whose callback assigns the list
  add_scale_options(sub, opt->sets);
  sub->add_option("--json", opt->json, "write the report as JSON to FILE ('-' = stdout, replacing the text)");
  sub->add_option("--html", opt->html, "write the report as an HTML page to FILE (as plansim report)");
  sub->add_option("--trace", opt->trace, "write a Perfetto/Chrome trace (a track per rank and stream) to FILE");
  sub->add_option("--trace-ranks", opt->trace_ranks,
                  "ranks in the trace: all | executed | stages | R,R,... (default: the executed ranks, or one per "
                  "stage when more than 256 ran)");
  sub->add_flag("--allow-oom", opt->allow_oom, "exit 0 even when the plan does not fit in GPU memory");
  sub->add_flag("--no-symmetry", opt->no_symmetry,
                "execute every rank (no TP folding, no TP-collective memo): slower, the reference for both");
  sub->add_flag("--bound", opt->bound,
                "print a proven lower bound on the iteration time instead of simulating (milliseconds, no events)");
  return {sub, [opt] {
            check_output_path("--json", opt->json);
            check_output_path("--trace", opt->trace);
            check_output_path("--html", opt->html);
            if (opt->bound) {
              const LoadedScenario s = load_scenario(opt->file, opt->sets);
              listed_trace_ranks(opt->trace_ranks, s.scenario.parallel.world());
              if (!opt->trace.empty() || !opt->html.empty())
                throw ConfigError(SourcePos{"--bound", 0, 0}, "--trace and --html need a simulation, not --bound");
              const PlanBound b = bound_plan(s.scenario, s.topology);
              if (opt->json != "-") write_output("-", bound_text(s.scenario.name, b));
              if (!opt->json.empty()) write_output(opt->json, bound_json(s.scenario.name, b));
              return kExitOk;
            }
            const bool ops = !opt->json.empty() || !opt->html.empty();  // the page's timeline reads them
            const PlanRun run = api::run({opt->file, opt->sets, !opt->no_symmetry, ops}, [&](const Scenario& s) {
              listed_trace_ranks(opt->trace_ranks, s.parallel.world());  // bad ranks: fail before the run
            });
            spdlog::info("simulated {} ranks in {:.3f} s wall ({} events)", run.plan.world, run.wall_seconds,
                         run.exec.events);
            if (opt->json != "-" && opt->trace != "-") write_output("-", report_text(run.report));
            if (!opt->json.empty() || !opt->html.empty()) {
              const std::string json = report_json(run.report);
              if (!opt->json.empty()) write_output(opt->json, json);
              if (!opt->html.empty())
                write_html_page(opt->html, json, opt->json.empty() || opt->json == "-" ? opt->file : opt->json);
            }
            if (!opt->trace.empty()) {
              const std::vector<uint32_t> ranks = trace_ranks(run.plan, opt->trace_ranks);
              if (opt->trace_ranks.empty() && ranks.size() < run.plan.programs.size())
                spdlog::info("trace: the first executed rank of each of the {} stages (--trace-ranks all | executed | "
                             "R,R,... for more)", ranks.size());
              write_output(opt->trace, trace_json(run.plan, run.exec, run.report, ranks));
            }
            return run.report.oom && !opt->allow_oom ? kExitOom : kExitOk;
          }};
}

}  // namespace plansim::app
