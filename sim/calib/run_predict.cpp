#include "sim/calib/run_predict.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <thread>

#include "sim/calib/profile.hpp"
#include "sim/report/simulate_plan.hpp"

namespace plansim::calib {

std::vector<RunPrediction> predict_runs(const RunSet& set, const std::vector<size_t>& which,
                                        const ComputeOverrides& extra, unsigned threads) {
  std::vector<RunPrediction> out(which.size());
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<size_t>(1, which.size())));
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  auto work = [&](unsigned t) {
    try {
      for (size_t i = next++; i < which.size(); i = next++) {
        const MeasuredRun& run = set.runs.at(which[i]);
        Scenario s = run.loaded->scenario;
        s.compute = merge(s.compute, extra);
        const PlanRun r = simulate_plan(s, run.loaded->topology, SimulateOptions{true, false});
        out[i] = {r.report.iteration.seconds(), r.report.oom};
      }
    } catch (...) {
      errors[t] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

ErrorStats error_stats(const std::vector<double>& errors) {
  ErrorStats s;
  s.runs = errors.size();
  for (double e : errors) {
    s.mape += std::abs(e);
    s.max_abs = std::max(s.max_abs, std::abs(e));
    s.bias += e;
  }
  if (!errors.empty()) {
    s.mape /= static_cast<double>(errors.size());
    s.bias /= static_cast<double>(errors.size());
  }
  return s;
}

}  // namespace plansim::calib
