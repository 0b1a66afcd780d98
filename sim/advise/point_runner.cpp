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
  }
  return r;
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
  parallel_for(
      points.size(), jobs, [&](size_t, size_t i) { results[i] = run_point(scenario, base_sets, points[i]); },
      progress);
  return results;
}

}  // namespace plansim::advise
