#include "sim/calib/nccl_fit_stage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "sim/calib/profile.hpp"
#include "sim/coll/algorithm.hpp"
#include "sim/coll/measure.hpp"

namespace plansim::calib::nccl_stage {
namespace {

void set_efficiency(NcclModelParams& p, const std::string& key, double e) {
  if (key == "network") p.network_efficiency = e;
  else if (key == "nvls") p.nvls_efficiency = e;
  else if (key == "pcie") p.pcie_efficiency = e;
  else p.nvlink_efficiency = e;
}

// Model time of every case with params `p` (per-call device latency and launch floor excluded).
std::vector<double> model_times(const std::vector<Case>& cases, const Topology& topo, NcclModelParams p) {
  p.device_latency_us = 0;
  p.launch_overhead_us = 0;
  p.torch_loop_overhead_us = 0;
  std::vector<double> t;
  for (const auto& c : cases)
    t.push_back(measure_collective(topo, p, c.op, c.s->nranks, Bytes(c.s->size_bytes), c.algo).time.seconds());
  return t;
}

// The additive latency minimising sum(((t_model + x - t) / t)^2) over `use`, clamped at 0; and that sum.
std::pair<double, double> best_extra(const std::vector<Case>& cases, const std::vector<double>& model,
                                     const std::vector<bool>& use) {
  double num = 0, den = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    if (!use[i]) continue;
    const double t = cases[i].s->time_s;
    num += (t - model[i]) / (t * t);
    den += 1.0 / (t * t);
  }
  const double x = den > 0 ? std::max(0.0, num / den) : 0.0;
  double sse = 0;
  for (size_t i = 0; i < cases.size(); ++i)
    if (use[i]) sse += std::pow((model[i] + x - cases[i].s->time_s) / cases[i].s->time_s, 2);
  return {x, sse};
}

struct GridPoint {
  double e;
  std::vector<double> model;
};

// Per-call latencies of a fit, in seconds: device (added to every call), launch (a benchmark loop's
// floor) and torch (a torch loop's per-call host cost, added to its rows):
// predicted = max(launch if floored, model + device + torch if a torch row).
struct Latencies {
  double device = 0, launch = 0, torch = 0;
};

double unfloored(double model, const Latencies& l, const Case& c) {
  return model + l.device + (c.torch ? l.torch : 0.0);
}

double predicted(double model, const Latencies& l, const Case& c) {
  const double t = unfloored(model, l, c);
  return c.floored ? std::max(l.launch, t) : t;
}

double sse_of(const std::vector<Case>& cases, const std::vector<double>& model, const std::vector<bool>& use,
              const Latencies& l) {
  double sse = 0;
  for (size_t i = 0; i < cases.size(); ++i)
    if (use[i]) sse += std::pow((predicted(model[i], l, cases[i]) - cases[i].s->time_s) / cases[i].s->time_s, 2);
  return sse;
}

// Whether the rows `use` identify a torch loop's per-call cost apart from the device latency: rows of
// both loops (a torch sweep and nccl-tests tables of one system).
bool identifies_torch_overhead(const std::vector<Case>& cases, const std::vector<bool>& use) {
  bool torch = false, other = false;
  for (size_t i = 0; i < cases.size(); ++i)
    if (use[i]) (cases[i].torch ? torch : other) = true;
  return torch && other;
}

// The latencies minimising the relative squared residuals over `use`: (device, launch) on a grid of 1 us
// (device 0-500 us, launch 0-1000 us); where the rows hold both loops, the torch loop's cost on a grid of
// 1 us over 0-300 us, alternating with (device, launch) within 30 us of the best until neither moves;
// then 0.05 us around the best. Launch stays 0 when no floor above every row's device time helps (it is
// then not identified by the rows: nothing binds); the torch cost stays at `start`'s when not identified.
Latencies best_latencies(const std::vector<Case>& cases, const std::vector<double>& model, const std::vector<bool>& use,
                         double start_torch) {
  Latencies best{0, 0, start_torch};
  double best_sse = sse_of(cases, model, use, best);
  auto consider = [&](const Latencies& c) {
    const double sse = sse_of(cases, model, use, c);
    if (sse < best_sse - 1e-15) best_sse = sse, best = c;
  };
  auto scan = [&](double d0, double d1, double l0, double l1, double step) {
    const Latencies around = best;
    for (double d = std::max(0.0, around.device + d0); d <= around.device + d1 + 1e-12; d += step)
      for (double l = std::max(0.0, around.launch + l0); l <= around.launch + l1 + 1e-12; l += step)
        consider({d, l, around.torch});
  };
  auto scan_torch = [&](double t0, double t1, double step) {
    const Latencies around = best;
    for (double t = std::max(0.0, around.torch + t0); t <= around.torch + t1 + 1e-12; t += step)
      consider({around.device, around.launch, t});
  };
  scan(0, 500e-6, 0, 1000e-6, 1e-6);
  const bool torch = identifies_torch_overhead(cases, use);
  for (int round = 0; torch && round < 20; ++round) {
    const Latencies before = best;
    scan_torch(-best.torch, 300e-6 - best.torch, 1e-6);
    scan(-30e-6, 30e-6, -30e-6, 30e-6, 1e-6);
    if (before.device == best.device && before.launch == best.launch && before.torch == best.torch) break;
  }
  scan(-1e-6, 1e-6, -1e-6, 1e-6, 0.05e-6);
  if (torch) scan_torch(-1e-6, 1e-6, 0.05e-6);
  return best;
}

// Best efficiency and latencies for the cases in `use`, in two stages when some of them are large
// (>= 64 MiB, where the bandwidth term dominates): the efficiency from the large cases alone (else all;
// with the closed-form best additive latency), then the latencies at that efficiency. A joint
// fit would let the many small rows (latency-bound, where the model's per-protocol latencies are least
// certain) pull the bandwidth away from the plateau the large rows measure. The latencies are fitted on
// the rows below 64 MiB only, and left at 0 when there are none.
std::pair<const GridPoint*, Latencies> search(const std::vector<GridPoint>& grid, const std::vector<Case>& cases,
                                              const std::vector<bool>& use, double start_torch) {
  constexpr double kLarge = 64.0 * 1048576;
  std::vector<bool> large(use.size(), false);
  bool any_large = false;
  for (size_t i = 0; i < cases.size(); ++i)
    if (use[i] && cases[i].s->size_bytes >= kLarge) large[i] = any_large = true;
  const GridPoint* best_g = &grid.front();
  double best = INFINITY;
  for (const auto& g : grid) {
    const double sse = best_extra(cases, g.model, any_large ? large : use).second;
    if (sse < best) best = sse, best_g = &g;
  }
  // The latencies from the rows below 64 MiB (where they are a visible part of the time); with none,
  // they are not identified and stay 0 (a few us of latency must not be fitted to 8 GiB rows' bandwidth).
  std::vector<bool> small(use.size(), false);
  bool any_small = !any_large;
  for (size_t i = 0; i < cases.size(); ++i)
    if (use[i] && cases[i].s->size_bytes < kLarge) small[i] = any_small = true;
  if (!any_small) return {best_g, Latencies{0, 0, start_torch}};
  return {best_g, best_latencies(cases, best_g->model, any_large ? small : use, start_torch)};
}

// Across servers the latency the rows < 64 MiB show is fitted as NCCL's per-network-step latency
// (graph latencyInter: tuning.cc 2.19-2.27 adds it to every inter-server step, twice with Simple, the
// flush), not as a per-call constant: it is the transport's, so it scales with the steps that cross
// servers (2 nNodes per ring all-reduce) when the profile predicts another node count. The device
// latency (and a torch loop's cost) stays at `start`; the launch floor is scanned as for one server. Grid:
// 0.5 us over 0-150 us, then 0.05 us around the best; the model times of each grid point are cached per
// efficiency.
struct NetLatencyFit {
  double net_us = 0;
  double launch = 0;  // seconds
  std::vector<double> model;  // times at net_us, per-call latencies excluded
};

class NetLatencyGrid {
 public:
  NetLatencyGrid(const std::vector<Case>& cases, const Topology& topo, NcclModelParams start, std::string key,
                 bool hold_launch)
      : cases_(cases), topo_(topo), start_(std::move(start)), key_(std::move(key)), hold_launch_(hold_launch) {}

  NetLatencyFit fit(double efficiency, const std::vector<bool>& use) {
    NetLatencyFit best;
    double best_sse = INFINITY;
    auto consider = [&](double net_us) {
      const std::vector<double>& model = times(efficiency, net_us);
      Latencies l = held();
      double sse = sse_of(cases_, model, use, l);
      for (double launch = 1e-6; !hold_launch_ && launch <= 1000e-6 + 1e-12; launch += 1e-6) {  // as best_latencies
        const Latencies c{l.device, launch, l.torch};
        const double s = sse_of(cases_, model, use, c);
        if (s < sse - 1e-15) sse = s, l = c;
      }
      if (sse < best_sse - 1e-15) best_sse = sse, best = {net_us, l.launch, model};
    };
    for (int k = 0; k <= 300; ++k) consider(0.5 * k);
    const double around = best.net_us;
    for (int k = -10; k <= 10; ++k)
      if (k != 0 && around + 0.05 * k >= 0) consider(around + 0.05 * k);
    return best;
  }

  // The per-call latencies this stage keeps from `start` (the launch floor too when held).
  Latencies held() const {
    return {start_.device_latency_us * 1e-6, hold_launch_ ? start_.launch_overhead_us * 1e-6 : 0,
            start_.torch_loop_overhead_us * 1e-6};
  }

 private:
  const std::vector<double>& times(double efficiency, double net_us) {
    const auto key = std::make_pair(std::lround(efficiency * 100), std::llround(net_us * 100));
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    NcclModelParams p = start_;
    set_efficiency(p, key_, efficiency);
    p.net_latency_us = net_us;
    return cache_[key] = model_times(cases_, topo_, p);
  }
  const std::vector<Case>& cases_;
  const Topology& topo_;
  NcclModelParams start_;
  std::string key_;
  bool hold_launch_;
  std::map<std::pair<long, long long>, std::vector<double>> cache_;
};

}  // namespace

std::map<std::string, std::vector<size_t>> leave_one_out_folds(const std::vector<Case>& cases, std::string& by) {
  std::map<std::string, std::vector<size_t>> folds;
  for (size_t i = 0; i < cases.size(); ++i) folds[cases[i].s->pos.file].push_back(i);
  by = folds.size() > 1 ? "file" : "sample";
  if (folds.size() <= 1) {
    folds.clear();
    for (size_t i = 0; i < cases.size(); ++i) folds[std::to_string(i)].push_back(i);
  }
  return folds;
}

NcclFit fit_cases(const std::vector<Case>& cases, const Topology& topo, const NcclModelParams& start, Options o) {
  // Which efficiency bounds the groups: each row's bounding link kind (network when its group spans
  // servers, NVLS when `auto` runs NVLS for it, else NVLink or PCIe), counted over the rows of the
  // largest size class (>= 64 MiB when there are such rows, else all); the most frequent one is fitted
  // (ties: the largest row's). The others stay at `start`.
  NcclFit f;
  auto key_of = [&](const Case& c) -> std::string {
    std::vector<GpuId> group;
    for (int i = 0; i < c.s->nranks; ++i) group.push_back(GpuId::from(i));
    if (distinct_hosts(topo, group) > 1) return "network";
    if (measure_collective(topo, start, c.op, c.s->nranks, Bytes(c.s->size_bytes), c.algo).algorithm == "nvls")
      return "nvls";
    return intra_hw_kind(topo, group) == HwKind::nvlink ? "nvlink" : "pcie";
  };
  const Case& big = *std::max_element(cases.begin(), cases.end(),
                                      [](const Case& a, const Case& b) { return a.s->size_bytes < b.s->size_bytes; });
  const double large = std::min(64.0 * 1048576, big.s->size_bytes);
  std::map<std::string, int> votes;
  for (const Case& c : cases)
    if (c.s->size_bytes >= large) ++votes[key_of(c)];
  f.efficiency_key = key_of(big);
  for (const auto& [k, n] : votes)
    if (n > votes[f.efficiency_key]) f.efficiency_key = k;

  std::vector<GridPoint> grid;
  for (int k = 5; k <= 100; ++k) {
    NcclModelParams p = start;
    set_efficiency(p, f.efficiency_key, k / 100.0);
    grid.push_back({k / 100.0, model_times(cases, topo, p)});
  }
  const std::vector<bool> all(cases.size(), true);
  // Across servers: the latency is the network's per-step one (NetLatencyGrid), fitted on the rows the
  // per-call latencies would be fitted on (< 64 MiB when there are larger ones).
  f.fits_net_latency = f.efficiency_key == "network";
  NetLatencyGrid net_grid(cases, topo, start, f.efficiency_key, o.hold_launch);
  auto small_rows = [&](const std::vector<bool>& use) {
    constexpr double kLarge = 64.0 * 1048576;
    std::vector<bool> small(use.size(), false);
    bool any_large = false, any_small = false;
    for (size_t i = 0; i < cases.size(); ++i) any_large |= use[i] && cases[i].s->size_bytes >= kLarge;
    for (size_t i = 0; i < cases.size(); ++i)
      if (use[i] && (!any_large || cases[i].s->size_bytes < kLarge)) small[i] = any_small = true;
    return std::make_pair(small, any_small);
  };
  // A fit on the rows `use`: the efficiency, the latencies and the model times of every case.
  struct FoldFit {
    double efficiency = 0, net_us = 0;
    Latencies lat;
    std::vector<double> model;  // without the launch floor
  };
  auto fit_on = [&](const std::vector<bool>& use) {
    const auto [g, l] = search(grid, cases, use, start.torch_loop_overhead_us * 1e-6);
    FoldFit r{g->e, start.net_latency_us, l, g->model};
    if (!f.fits_net_latency) return r;
    const auto [small, any_small] = small_rows(use);
    r.lat = net_grid.held();
    if (!any_small) return r;
    NetLatencyFit n = net_grid.fit(g->e, small);
    r.net_us = n.net_us;
    r.lat.launch = n.launch;
    r.model = std::move(n.model);
    return r;
  };
  auto predicted_by = [&](const FoldFit& r, size_t i) { return predicted(r.model[i], r.lat, cases[i]); };
  const FoldFit best = fit_on(all);
  f.efficiency = best.efficiency;
  f.device_latency_us = best.lat.device * 1e6;
  f.launch_overhead_us = best.lat.launch * 1e6;
  f.torch_loop_overhead_us = best.lat.torch * 1e6;
  f.torch_overhead_fitted = !f.fits_net_latency && identifies_torch_overhead(cases, small_rows(all).first);
  f.net_latency_us = best.net_us;
  f.params = start;
  set_efficiency(f.params, f.efficiency_key, f.efficiency);
  f.params.device_latency_us = f.device_latency_us;
  f.params.launch_overhead_us = f.launch_overhead_us;
  f.params.torch_loop_overhead_us = f.torch_loop_overhead_us;
  f.params.net_latency_us = f.net_latency_us;

  // Leave-one-out folds: by file when there are several, else by sample.
  f.residuals.resize(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    f.residuals[i] = {cases[i].s, predicted_by(best, i), 0};
    if (cases[i].floored && best.lat.launch > unfloored(best.model[i], best.lat, cases[i])) ++f.launch_bound_rows;
  }
  if (!o.leave_one_out) return f;
  const auto folds = leave_one_out_folds(cases, f.loo_by);
  for (const auto& [name, members] : folds) {
    std::vector<bool> use(cases.size(), true);
    for (size_t i : members) use[i] = false;
    if (std::none_of(use.begin(), use.end(), [](bool b) { return b; })) continue;
    const FoldFit r = fit_on(use);
    for (size_t i : members) f.residuals[i].loo_predicted_s = predicted_by(r, i);
  }
  return f;
}

}  // namespace plansim::calib::nccl_stage
