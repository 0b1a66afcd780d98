#pragma once
// `plansim plot`: figures through gnuplot. A PlotSpec holds the data (CSV blocks, gnuplot `index` N
// for block N) and the plot commands, with DATA standing for the CSV file's name. render_plot writes
// FILE.csv and FILE.gp next to the output, runs gnuplot, and removes them again on success; when
// gnuplot is missing or fails they stay, and the returned message says how to render them.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/advise/lint.hpp"
#include "sim/advise/sweep.hpp"

namespace plansim::advise {

struct PlotSpec {
  std::string title;
  std::string xlabel;
  std::string ylabel;
  std::vector<std::string> blocks;  // CSV text per data block (no header)
  std::string setup;                // extra gnuplot commands before `plot` (log scales, labels, ranges)
  std::string plot;                 // the body after `plot`, DATA = the CSV file
  int width = 0, height = 0;        // the SVG canvas in pixels (0: 900×540; PNG: 4/3 of it)
};

// Returns "" on success, else a note for the user (gnuplot missing: the .gp/.csv are kept).
std::string render_plot(const PlotSpec& spec, const std::filesystem::path& out);
// The SVG document gnuplot draws for `spec` (rendered in a temporary folder, read back, removed).
// Throws ConfigError when gnuplot is missing or fails.
std::string render_plot_svg(const PlotSpec& spec);

// Plot kinds (plot_kinds.cpp). Scenario-based kinds simulate through run_points.
// a) bubble overhead vs micro-batches for p = 2, 4, 8, 16 ((p−1)/m, 1F1B), the seeds' 4×16 and 16×4
//    cases marked, plus the simulated bubble overhead of each given scenario at its (m, p).
PlotSpec plot_bubble(const std::vector<std::filesystem::path>& scenarios, int jobs);
// b) iteration time with the TP group inside a server (NVLink) vs across servers, on each topology.
PlotSpec plot_tp_placement(const std::filesystem::path& scenario, const std::vector<std::filesystem::path>& topologies,
                           const std::vector<std::string>& sets, int jobs);
// c) DP scaling efficiency 1 − exposed DP communication / iteration vs sequences per GPU (global batch varied).
PlotSpec plot_dp_scaling(const std::filesystem::path& scenario, const std::vector<std::string>& sets,
                         const std::vector<int64_t>& global_batches, int jobs);
// d) simulated busbw vs message size for every series of the given nccl-tests tables (validate/nccl/*.yaml,
//    `plansim collective --compare` format), published points overlaid (plot_busbw.cpp).
PlotSpec plot_busbw(const std::vector<std::filesystem::path>& table_files);
// e) lint: measured cost (% of iteration time) of every finding.
PlotSpec plot_lint(const LintResult& r);
// f) a sweep's metric against its first key (one line per value of the second key, if any).
PlotSpec plot_sweep(const SweepResult& r, const std::string& metric);

// The named metric of a point (iteration_s, tokens_per_s, mfu, bubble_fraction, memory_peak_GiB,
// exposed_<dim>_s). Throws ConfigError for an unknown name.
double metric_value(const PointMetrics& m, const std::string& name);

}  // namespace plansim::advise
