// The data behind each `plansim plot` kind (plot.hpp). Every simulated figure comes from run_points.
#include <fmt/format.h>

#include <map>

#include "sim/advise/plot.hpp"
#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/plan/scenario.hpp"

namespace plansim::advise {

namespace {

constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};

std::string csv_label(std::string s) {
  for (auto& c : s)
    if (c == ',' || c == '"') c = ' ';
  return s;
}

}  // namespace

PlotSpec plot_bubble(const std::vector<std::filesystem::path>& scenarios, int jobs) {
  PlotSpec p;
  p.title = "1F1B pipeline bubble overhead (p-1)/m";
  p.xlabel = "micro-batches per iteration m";
  p.ylabel = "bubble overhead (% of busy compute)";
  p.setup = "set logscale x 2\nset logscale y 10\nset xrange [1:128]\nset format y '%g'\n";
  const int stages[] = {2, 4, 8, 16};
  std::string body;
  for (size_t i = 0; i < 4; ++i) {
    std::string b;
    for (int m = 1; m <= 128; m *= 2) b += fmt::format("{},{}\n", m, 100.0 * (stages[i] - 1) / m);
    p.blocks.push_back(b);
    body += fmt::format("DATA index {} with linespoints lw 2 pt 7 ps 0.6 lc rgb '{}' title 'p = {}', ", i, kColors[i],
                        stages[i]);
  }
  // The seeds' two cases (SEEDS.md: 4 stages × 16 micro-batches -> 18.75 %, 16 × 4 -> 375 %).
  p.blocks.push_back("16,18.75,4x16: 18.75 %\n4,375,16x4: 375 %\n");
  body += "DATA index 4 using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#000000' title 'seeds (formula)', "
          "DATA index 4 using 1:2:3 with labels offset 2,1 left notitle";
  if (!scenarios.empty()) {
    std::string b;
    for (const auto& s : scenarios) {
      const PointResult r = run_point(s, {}, {});
      rethrow_if_invalid(r);  // a scenario named on the command line that does not load is bad input
      if (r.valid)
        b += fmt::format("{},{},{}\n", r.metrics.micro_batches, 100 * r.metrics.bubble_overhead,
                         csv_label(s.stem().string()));
    }
    (void)jobs;
    p.blocks.push_back(b.empty() ? "1,1,none\n" : b);
    body += ", DATA index 5 using 1:2 with points pt 9 ps 2.2 lc rgb '#ff7f0e' title 'simulated (plansim run)'";
  }
  p.plot = body;
  return p;
}

PlotSpec plot_tp_placement(const std::filesystem::path& scenario, const std::vector<std::filesystem::path>& topologies,
                           const std::vector<std::string>& sets, int jobs) {
  PlotSpec p;
  p.title = "TP group inside a server (NVLink) vs across servers";
  p.xlabel = "";
  p.ylabel = "iteration time (s)";
  std::vector<std::vector<std::string>> points;
  std::vector<std::string> names;
  for (const auto& t : topologies) {
    const std::string topo = "topology=" + std::filesystem::absolute(t).string();
    points.push_back({topo, "parallel.order=[tp,cp,ep,dp,pp]"});
    points.push_back({topo, "parallel.order=[dp,cp,ep,tp,pp]"});
    names.push_back(t.stem().string());
  }
  const auto res = run_points(scenario, sets, points, jobs);
  std::string b;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto& in = res[2 * i];
    const auto& across = res[2 * i + 1];
    rethrow_if_invalid(in);  // a topology given with --topology that the plan cannot use is bad input
    rethrow_if_invalid(across);
    b += fmt::format("{},{},{}\n", csv_label(names[i]), in.valid ? in.metrics.iteration_s : 0,
                     across.valid ? across.metrics.iteration_s : 0);
  }
  p.blocks.push_back(b);
  p.setup = "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
            "set boxwidth 0.9\nset yrange [0:*]\nset key top left\n";
  p.plot = "DATA using 2:xtic(1) title 'TP inside a server (NVLink)' lc rgb '#2ca02c', "
           "DATA using 3 title 'TP across servers (fabric)' lc rgb '#d62728'";
  return p;
}

PlotSpec plot_dp_scaling(const std::filesystem::path& scenario, const std::vector<std::string>& sets,
                         const std::vector<int64_t>& global_batches, int jobs) {
  PlotSpec p;
  LoadedScenario s = load_scenario(scenario, sets);
  const int world = s.scenario.parallel.world();
  p.title = fmt::format("DP scaling efficiency, {} GPUs (DP={})", world, s.scenario.parallel.dp);
  p.xlabel = "sequences per GPU per iteration";
  p.ylabel = "efficiency 1 - exposed DP comm / iteration (%)";
  std::vector<std::vector<std::string>> points;
  for (int64_t gb : global_batches) points.push_back({fmt::format("training.global_batch={}", gb)});
  const auto res = run_points(scenario, sets, points, jobs);
  std::string b;
  for (size_t i = 0; i < res.size(); ++i) {
    if (!res[i].valid) continue;
    const auto& m = res[i].metrics;
    b += fmt::format("{},{}\n", static_cast<double>(global_batches[i]) / world,
                     100 * (1 - m.exposed_comm_s[3] / m.iteration_s));
  }
  p.blocks.push_back(b.empty() ? "1,0\n" : b);
  p.setup = "set logscale x 2\nset yrange [0:105]\nset key bottom right\n";
  p.plot = "DATA using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'simulated'";
  return p;
}

PlotSpec plot_lint(const LintResult& r) {
  PlotSpec p;
  p.title = "lint: " + r.scenario;
  p.xlabel = "";
  p.ylabel = "cost: % of iteration time the fix saves";
  std::string b;
  for (const auto& f : r.findings) {
    std::string name;
    for (const auto& id : f.rules) name += (name.empty() ? "" : " + ") + id;
    b += fmt::format("{},{}\n", csv_label(name), f.fix_found ? 100 * f.saved_fraction : 0);
  }
  p.blocks.push_back(b.empty() ? "no findings,0\n" : b);
  p.setup = "set style data histograms\nset style fill solid 0.85 border -1\nset boxwidth 0.6\nset yrange [0:100]\n"
            "set xtics rotate by -20\nunset key\n";
  p.plot = "DATA using 2:xtic(1) lc rgb '#d62728'";
  return p;
}

PlotSpec plot_sweep(const SweepResult& r, const std::string& metric) {
  PlotSpec p;
  if (r.keys.empty()) throw ConfigError(SourcePos{"--vary", 0, 0}, "a sweep plot needs at least one --vary");
  p.title = "sweep: " + metric;
  p.xlabel = r.keys[0].key;
  p.ylabel = metric;
  const std::vector<std::string> series = r.keys.size() > 1 ? r.keys[1].values : std::vector<std::string>{""};
  std::string body;
  for (size_t s = 0; s < series.size(); ++s) {
    std::string b;
    for (const auto& pt : r.points) {
      if (!pt.valid || (r.keys.size() > 1 && value_of(pt.sets, r.keys[1].key) != series[s])) continue;
      b += fmt::format("{},{}\n", value_of(pt.sets, r.keys[0].key), metric_value(pt.metrics, metric));
    }
    p.blocks.push_back(b.empty() ? "0,0\n" : b);
    body += fmt::format("{}DATA index {} using 1:2 with linespoints lw 2 pt 7 lc rgb '{}' title '{}'",
                        s ? ", " : "", s, kColors[s % 6],
                        r.keys.size() > 1 ? r.keys[1].key + " = " + series[s] : metric);
  }
  p.plot = body;
  return p;
}

}  // namespace plansim::advise
