#include "sim/advise/point_runner.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/report/simulate_plan.hpp"

namespace plansim::advise {

PointResult run_point(const std::filesystem::path& scenario, const std::vector<std::string>& base_sets,
                      const std::vector<std::string>& sets) {
  PointResult r;
  r.sets = sets;
  std::vector<std::string> all = base_sets;
  all.insert(all.end(), sets.begin(), sets.end());
  try {
    LoadedScenario s = load_scenario(scenario, all);
    PlanRun run = simulate_plan(s.scenario, s.topology, SimulateOptions{true, false});
    r.metrics = metrics_of(run.report);
    r.valid = true;
  } catch (const ConfigError& e) {
    r.error = e.what();
    r.error_pos = e.pos();
    r.error_message = e.message();
  }
  return r;
}

void rethrow_if_invalid(const PointResult& r) {
  if (!r.valid) throw ConfigError(r.error_pos, r.error_message);
}

void rethrow_if_all_invalid_alike(const std::vector<PointResult>& points) {
  if (points.size() < 2) return;  // one point: its value may be what is wrong, the table says so
  for (const auto& p : points)
    if (p.valid || p.error != points.front().error) return;
  rethrow_if_invalid(points.front());
}

int default_jobs() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency())); }

void parallel_for(size_t n, int jobs, const std::function<void(size_t worker, size_t i)>& fn,
                  const ProgressFn& progress) {
  std::atomic<size_t> next{0};
  size_t done = 0;
  std::mutex mu;
  std::exception_ptr failure;
  auto worker = [&](size_t w) {
    for (;;) {
      const size_t i = next.fetch_add(1);
      if (i >= n) return;
      try {
        fn(w, i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!failure) failure = std::current_exception();
        next = n;
      }
      std::lock_guard lock(mu);
      ++done;
      if (progress) progress(done, n);
    }
  };
  const size_t threads = std::min(n, static_cast<size_t>(std::max(1, jobs)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

std::vector<PointResult> run_points(const std::filesystem::path& scenario, const std::vector<std::string>& base_sets,
                                    const std::vector<std::vector<std::string>>& points, int jobs,
                                    const ProgressFn& progress) {
  std::vector<PointResult> results(points.size());
  // Progress is reported from the first valid point on: a run whose every point fails (bad input, one
  // line on stderr) prints none.
  std::atomic<bool> any_valid{false};
  parallel_for(
      points.size(), jobs,
      [&](size_t, size_t i) {
        results[i] = run_point(scenario, base_sets, points[i]);
        if (results[i].valid) any_valid = true;
      },
      [&](size_t done, size_t total) {
        if (progress && any_valid) progress(done, total);
      });
  return results;
}

}  // namespace plansim::advise
