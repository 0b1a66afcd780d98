#include "sim/calib/nccl_fit.hpp"

#include "sim/calib/nccl_fit_stage.hpp"
#include "sim/calib/nccl_params_yaml.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "sim/calib/profile.hpp"
#include "sim/coll/algorithm.hpp"
#include "sim/coll/measure.hpp"

namespace plansim::calib {
namespace {

using nccl_stage::Case;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool spans_servers(const Topology& topo, const Case& c) {
  std::vector<GpuId> group;
  for (int i = 0; i < c.s->nranks; ++i) group.push_back(GpuId::from(i));
  return distinct_hosts(topo, group) > 1;
}

// Groups inside one server and groups spanning servers together (a system's 1-node and N-node tables):
// two stages, as NCCL's model separates them. The server stage fits its bounding efficiency and per-call
// latencies on the rows inside one server; the network stage then fits the network efficiency and NCCL's
// per-network-step latency on the spanning rows, starting from the server stage's values (a spanning
// ring also crosses NVLink inside each server) and keeping its launch floor (the same host loop). The
// network parameters do not change a server-internal row's time, so each row is predicted by its stage.
// Leave-one-out by file refits both stages without the file: a table of spanning groups left out is
// predicted from the other tables; with no spanning table left, from the server stage alone (the
// network at `start`).
struct TwoStage {
  NcclFit server, network;
};

NcclFit fit_with_floor(const std::vector<Case>& cases, const Topology& topo, const NcclModelParams& start);

TwoStage fit_two_stages(const std::vector<Case>& cases, const std::vector<bool>& use, const std::vector<bool>& spans,
                        const Topology& topo, const NcclModelParams& start, bool loo) {
  std::vector<Case> inner, outer;
  for (size_t i = 0; i < cases.size(); ++i)
    if (use[i]) (spans[i] ? outer : inner).push_back(cases[i]);
  TwoStage t;
  t.server.params = start;
  if (!inner.empty()) t.server = nccl_stage::fit_cases(inner, topo, start, {.leave_one_out = loo});
  if (!outer.empty())
    t.network = nccl_stage::fit_cases(outer, topo, t.server.params, {.leave_one_out = loo, .hold_launch = true});
  else
    t.network.params = t.server.params;
  return t;
}

}  // namespace

NcclFit fit_nccl_model(const Measurements& m, const Topology& topo, const NcclModelParams& start) {
  if (m.collectives.empty())
    throw ConfigError(SourcePos{m.sources.empty() ? std::string("-") : m.sources.front(), 0, 0},
                      "no collective rows to fit the NCCL model to");
  const AlgorithmRegistry reg = make_default_registry();
  std::vector<Case> cases;
  for (const auto& s : m.collectives) {
    const auto op = coll_op_from_string(s.op);
    if (!op || *op == CollOp::send_recv)
      throw ConfigError(s.pos, fmt::format("cannot fit the NCCL model to op '{}'", s.op));
    std::string algo = lower(s.algorithm.empty() ? "auto" : s.algorithm);
    if (algo != "auto" && !reg.find(algo))
      throw ConfigError(s.pos, fmt::format("unknown algorithm '{}' (auto, {})", s.algorithm, fmt::join(reg.names(), ", ")));
    if (s.nranks < 2 || static_cast<size_t>(s.nranks) > topo.num_gpus())
      throw ConfigError(s.pos, fmt::format("{} ranks on topology '{}' of {} GPUs", s.nranks, topo.name(), topo.num_gpus()));
    if (!(s.time_s > 0)) throw ConfigError(s.pos, "a collective time must be positive");
    cases.push_back({&s, *op, algo, true, s.harness == BenchHarness::torch});
  }
  // The launch floor is a benchmark loop's (nccl_model.hpp BenchHarness), applied to that loop's rows only:
  // with rows of one loop below 64 MiB (where a floor can bind), that loop's; with rows of both, the fit is
  // made with the floor on each loop and the one with the smaller sum of squared relative residuals kept.
  int torch_small = 0, other_small = 0;
  for (const auto& s : m.collectives)
    if (s.size_bytes < 64.0 * 1048576) ++(s.harness == BenchHarness::torch ? torch_small : other_small);
  auto fit_floored = [&](BenchHarness floor_loop) {
    NcclModelParams start_floor = start;
    start_floor.launch_overhead_harness = floor_loop;
    for (Case& c : cases) c.floored = c.s->harness == floor_loop;
    return fit_with_floor(cases, topo, start_floor);
  };
  if (torch_small == 0 || other_small == 0)
    return fit_floored(torch_small > other_small ? BenchHarness::torch : BenchHarness::nccl_tests);
  auto sse = [](const NcclFit& f) {
    double s = 0;
    for (const auto& r : f.residuals) s += std::pow(r.sample->time_s / r.predicted_s - 1, 2);
    return s;
  };
  NcclFit on_torch = fit_floored(BenchHarness::torch);
  NcclFit on_other = fit_floored(BenchHarness::nccl_tests);
  return sse(on_torch) < sse(on_other) ? on_torch : on_other;
}

namespace {

NcclFit fit_with_floor(const std::vector<Case>& cases, const Topology& topo, const NcclModelParams& start) {
  std::vector<bool> spans;
  for (const Case& c : cases) spans.push_back(spans_servers(topo, c));
  const bool any_inner = std::find(spans.begin(), spans.end(), false) != spans.end();
  const bool any_outer = std::find(spans.begin(), spans.end(), true) != spans.end();
  if (!(any_inner && any_outer)) return nccl_stage::fit_cases(cases, topo, start, {});

  const std::vector<bool> all(cases.size(), true);
  const TwoStage best = fit_two_stages(cases, all, spans, topo, start, false);
  NcclFit f = best.server;
  f.params = best.network.params;
  f.network = NcclFit::NetworkStage{best.network.efficiency, best.network.net_latency_us};
  f.residuals.clear();
  // Each row predicted by its stage, in the input's order.
  size_t in = 0, out = 0;
  for (size_t i = 0; i < cases.size(); ++i)
    f.residuals.push_back(spans[i] ? best.network.residuals[out++] : best.server.residuals[in++]);
  f.launch_bound_rows = best.server.launch_bound_rows + best.network.launch_bound_rows;
  const auto folds = nccl_stage::leave_one_out_folds(cases, f.loo_by);
  for (const auto& [name, members] : folds) {
    std::vector<bool> use(cases.size(), true);
    for (size_t i : members) use[i] = false;
    const TwoStage r = fit_two_stages(cases, use, spans, topo, start, false);
    for (size_t i : members) {
      const NcclModelParams& p = spans[i] ? r.network.params : r.server.params;
      f.residuals[i].loo_predicted_s = measure_collective(topo, p, cases[i].op, cases[i].s->nranks,
                                                          Bytes(cases[i].s->size_bytes), cases[i].algo, "auto",
                                                          cases[i].s->harness)
                                           .time.seconds();
    }
  }
  return f;
}

}  // namespace

std::string format_nccl_fit(const NcclFit& f) {
  std::string t = fmt::format(
      "# NCCL model fit: {} efficiency {:.2f}, {} {:.2f} us, launch overhead {:.2f} us ({}) "
      "(leave-one-out by {})\n",
      f.efficiency_key, f.efficiency,
      f.fits_net_latency ? fmt::format("network step latency (net_latency) {:.2f} us, device latency (not fitted)",
                                       f.net_latency_us)
                         : std::string("device latency"),
      f.device_latency_us, f.launch_overhead_us,
      f.launch_bound_rows > 0 ? fmt::format("the floor of {} rows of the {} loop", f.launch_bound_rows,
                                            to_string(f.params.launch_overhead_harness))
                              : std::string("binds no row: not identified"),
      f.loo_by);
  if (f.torch_overhead_fitted || f.torch_loop_overhead_us > 0)
    t += fmt::format("# torch loop overhead {:.2f} us per call on the rows a torch.distributed loop timed ({})\n",
                     f.torch_loop_overhead_us,
                     f.torch_overhead_fitted ? "fitted against the other loop's rows" : "the start profile's");
  if (f.network)
    t += fmt::format("# then, on the rows spanning servers (the values above held): network efficiency {:.2f}, "
                     "network step latency (net_latency) {:.2f} us\n",
                     f.network->efficiency, f.network->net_latency_us);
  t += fmt::format("# {:>14} {:>5} {:>14} {:>12} {:>12} {:>8} {:>8}\n", "op", "ranks", "size (B)", "measured",
                   "predicted", "error", "loo");
  t += fmt::format("# {:>14} {:>5} {:>14} {:>12} {:>12} {:>8} {:>8}\n", "", "", "", "busbw GB/s", "busbw GB/s", "%", "%");
  for (const auto& r : f.residuals) {
    const double bus = r.sample->size_bytes * r.sample->busbw_factor;
    auto err = [&](double pred) { return pred > 0 ? (r.sample->time_s / pred - 1) * 100 : 0.0; };
    t += fmt::format("  {:>14} {:>5} {:>14.0f} {:>12.2f} {:>12.2f} {:>+8.1f} {:>+8.1f}\n", r.sample->op, r.sample->nranks,
                     r.sample->size_bytes, bus / r.sample->time_s / 1e9, bus / r.predicted_s / 1e9,
                     err(r.predicted_s), err(r.loo_predicted_s));
  }
  if (f.loo_by != "file") return t;
  // Per table (input file): mean |error| in-sample and leave-one-out, at >= 1 MiB and below.
  struct Sums {
    double in[2] = {0, 0}, loo[2] = {0, 0};
    int n[2] = {0, 0};
  };
  std::map<std::string, Sums> by_file;
  std::vector<std::string> order;
  for (const auto& r : f.residuals) {
    auto err = [&](double pred) { return pred > 0 ? std::abs(r.sample->time_s / pred - 1) * 100 : 0.0; };
    if (!by_file.count(r.sample->pos.file)) order.push_back(r.sample->pos.file);
    Sums& s = by_file[r.sample->pos.file];
    const int b = r.sample->size_bytes >= 1048576 ? 0 : 1;
    s.in[b] += err(r.predicted_s), s.loo[b] += err(r.loo_predicted_s), ++s.n[b];
  }
  t += "# leave-one-out by table: mean |busbw error| in-sample / with the table left out of the fit\n";
  t += fmt::format("# {:>6} {:>22} {:>22}  {}\n", "rows", ">= 1 MiB", "< 1 MiB", "table");
  for (const auto& file : order) {
    const Sums& s = by_file[file];
    auto cell = [&](int b) {
      return s.n[b] ? fmt::format("{:.1f} / {:.1f} % ({})", s.in[b] / s.n[b], s.loo[b] / s.n[b], s.n[b]) : std::string("-");
    };
    t += fmt::format("  {:>6} {:>22} {:>22}  {}\n", s.n[0] + s.n[1], cell(0), cell(1), file);
  }
  return t;
}

std::string nccl_fit_profile_yaml(const NcclFit& f, const Measurements& m, const std::string& topology,
                                  const std::vector<std::string>& applies_to, const std::string& start) {
  std::string y = "# plansim calibration profile (README \"Calibration profiles\"), written by `plansim calibrate "
                  "--topology`:\n# the NCCL model's per-system parameters fitted to measured collectives "
                  "(sim/calib/nccl_fit.hpp).\n";
  for (const auto& line : [&] {
         std::vector<std::string> v;
         std::string s = format_nccl_fit(f), cur;
         for (char c : s) {
           if (c == '\n') v.push_back(cur), cur.clear();
           else cur += c;
         }
         return v;
       }())
    y += "#" + (line.rfind("#", 0) == 0 ? line.substr(1) : line) + "\n";
  y += fmt::format("plansim_profile: {}\n", kProfileFormatVersion);
  y += fmt::format("name: {}\n", yaml_quoted((m.device.empty() ? std::string("system") : m.device) + " (nccl fit)"));
  if (!applies_to.empty()) {
    y += "applies_to: [";
    for (size_t i = 0; i < applies_to.size(); ++i) y += (i ? ", " : "") + yaml_quoted(applies_to[i]);
    y += "]\n";
  }
  y += "source:\n";
  y += fmt::format("  summary: {}\n", yaml_quoted("NCCL model fitted on topology " + topology +
                                                 (start.empty() ? std::string() : ", starting from " + start)));
  y += "  data:\n";
  for (const auto& s : m.sources) y += fmt::format("    - {}\n", yaml_quoted(s));
  y += nccl_params_yaml(f.params, f.efficiency_key);
  return y;
}

}  // namespace plansim::calib
