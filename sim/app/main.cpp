// plansim: predict how a distributed-training plan performs on a cluster.
// Each subcommand is one file in sim/app; this file only wires them up and maps errors to exit codes.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <vector>

#include "sim/app/command.hpp"
#include "sim/core/error.hpp"

int main(int argc, char** argv) {
  using namespace plansim::app;
  CLI::App app{"plansim: simulate distributed-training plans on GPU clusters (see README.md)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "plansim 0.1.0");
  std::string log_level = "warn";
  app.add_option("--log-level", log_level, "stderr log level: trace, debug, info, warn, error, off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "off"}));

  // One line per subcommand.
  std::vector<Command> commands = {
      // add_<name>_command(app), one per subcommand file
      add_topo_command(app),
      add_collective_command(app),
      add_calibrate_command(app),
      add_validate_command(app),
      add_run_command(app),
      add_lint_command(app),
      add_sweep_command(app),
      add_search_command(app),
      add_plot_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }
  auto logger = spdlog::stderr_color_mt("plansim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(log_level));

  try {
    for (const auto& c : commands)
      if (c.sub->parsed()) return c.run();
  } catch (const plansim::ConfigError& e) {
    std::cerr << e.what() << '\n';
    return kExitBadInput;
  } catch (const plansim::InternalError& e) {
    std::cerr << "plansim: " << e.what() << " (please report this)\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "plansim: error: " << e.what() << '\n';
    return kExitInternal;
  }
  return kExitOk;
}
