// plansim: predict how a distributed-training plan performs on a cluster.
// Each subcommand is one file in sim/app; this file only wires them up and maps errors to exit codes.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "sim/app/allocator.hpp"
#include "sim/app/command.hpp"
#include "sim/core/error.hpp"

namespace {

// Every message is one line on stderr, whatever the exception carried.
std::string one_line(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace plansim::app;
  use_large_pages_for_the_heap();
  CLI::App app{"plansim: simulate distributed-training plans on GPU clusters (see README.md)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("plansim 0.1.0 (heap: ") + heap_allocator_name() + ")");
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
      add_merge_command(app),
      add_plot_command(app),
      add_report_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version print and exit 0; every other parse error is one line (CLI11 adds a second).
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::cerr << "plansim: " << one_line(e.what()) << '\n';
    return kExitBadInput;
  }
  auto logger = spdlog::stderr_color_mt("plansim");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::from_str(log_level));

  try {
    for (const auto& c : commands)
      if (c.sub->parsed()) return c.run();
  } catch (const plansim::ConfigError& e) {  // bad input: file:line:col: message
    std::cerr << one_line(e.what()) << '\n';
    return kExitBadInput;
  } catch (const std::filesystem::filesystem_error& e) {  // the file system refused (permissions, ...)
    std::cerr << "plansim: I/O error: " << one_line(e.what()) << '\n';
    return kExitBadInput;
  } catch (const std::ios_base::failure& e) {
    std::cerr << "plansim: I/O error: " << one_line(e.what()) << '\n';
    return kExitBadInput;
  } catch (const plansim::InternalError& e) {  // anything else is a plansim bug: say so
    std::cerr << "plansim: internal error: " << one_line(e.what()) << " (a plansim bug, please report it)\n";
    return kExitInternal;
  } catch (const std::bad_alloc&) {
    std::cerr << "plansim: internal error: out of memory (an input within the README's limits should not do this: "
                 "a plansim bug, please report it)\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    std::cerr << "plansim: internal error: " << one_line(e.what()) << " (a plansim bug, please report it)\n";
    return kExitInternal;
  } catch (...) {
    std::cerr << "plansim: internal error: an unknown exception (a plansim bug, please report it)\n";
    return kExitInternal;
  }
  return kExitOk;
}
