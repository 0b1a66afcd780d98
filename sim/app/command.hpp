#pragma once
// The CLI's subcommands. Each lives in its own file (sim/app/cmd_<name>.cpp) and registers itself in
// main.cpp's table with one line: `add_<name>_command(app)` returns the runner to call when the
// subcommand was given. Runners return the process exit code; they throw ConfigError for bad input.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace plansim::app {

using CommandRunner = std::function<int()>;

struct Command {
  CLI::App* sub = nullptr;
  CommandRunner run;
};

// Exit codes shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;   // lint found problems / validate out of tolerance
inline constexpr int kExitBadInput = 2;   // ConfigError: file:line:col on stderr
inline constexpr int kExitOom = 3;        // run: the plan does not fit in memory
inline constexpr int kExitInternal = 70;  // a plansim bug (InternalError)

// Writes `text` to `path`, or to stdout when path is "-". Throws ConfigError if the file cannot be written.
// A regular file is replaced atomically (a temporary beside it, renamed): never left half-written.
void write_output(const std::string& path, const std::string& text);
// Before any work: an output path must not be a directory and its directory must exist (ConfigError at `flag`).
void check_output_path(const std::string& flag, const std::string& path);

// `--html FILE` of run and lint: the page `plansim report` makes of the subcommand's --json document
// (`json`), named `name` in the page (cmd_report.cpp). Picture notes go to stderr.
void write_html_page(const std::string& path, const std::string& json, const std::string& name);

// Subcommands (one file each): declare `Command add_<name>_command(CLI::App& app);` here.
Command add_topo_command(CLI::App& app);  // cmd_topo.cpp
Command add_collective_command(CLI::App& app);  // cmd_collective.cpp
Command add_calibrate_command(CLI::App& app);
Command add_validate_command(CLI::App& app);
Command add_run_command(CLI::App& app);   // cmd_run.cpp
Command add_lint_command(CLI::App& app);  // cmd_lint.cpp
Command add_sweep_command(CLI::App& app);  // cmd_sweep.cpp
Command add_search_command(CLI::App& app);  // cmd_search.cpp
Command add_merge_command(CLI::App& app);  // cmd_merge.cpp
Command add_plot_command(CLI::App& app);  // cmd_plot.cpp
Command add_report_command(CLI::App& app);  // cmd_report.cpp

}  // namespace plansim::app

namespace plansim::app {

// `--calibration FILE|none`: a calibration profile replacing the scenario's `calibration:` (README
// "Calibration profiles"); added to `sets` as the override `calibration=<absolute path>`.
void add_calibration_option(CLI::App* sub, std::vector<std::string>& sets);

// `--scale-layers N` and `--scale-batch N`, plansim-hw run's options for shrinking a scenario onto the GPUs at
// hand (= --set model.layers=N, training.global_batch=N), so that `plansim run` takes the same command line.
void add_scale_options(CLI::App* sub, std::vector<std::string>& sets);

}  // namespace plansim::app
