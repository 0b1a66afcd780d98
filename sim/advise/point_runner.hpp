#pragma once
// Runs many variants of one scenario file in parallel: each point is a list of "key.path=value"
// overrides applied on top of the base overrides. A std::thread pool of `jobs` workers; every point
// loads its own scenario and Topology (Topology::route is not thread-safe), so no state is shared.
// A point the loader rejects (e.g. tp·pp·dp ≠ GPUs) is returned as invalid with the message, not thrown.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "sim/advise/point_metrics.hpp"
#include "sim/core/error.hpp"

namespace plansim::advise {

struct PointResult {
  std::vector<std::string> sets;  // the point's own overrides
  bool valid = false;
  std::string error;              // why the point is invalid ("file:line:col: message")
  SourcePos error_pos;            // the same, in parts, to rethrow it (rethrow_if_invalid)
  std::string error_message;
  PointMetrics metrics;
};

// Called after each finished point with (done, total); from worker threads, serialised by a mutex.
// run_points calls it only once some point is valid.
using ProgressFn = std::function<void(size_t done, size_t total)>;

std::vector<PointResult> run_points(const std::filesystem::path& scenario, const std::vector<std::string>& base_sets,
                                    const std::vector<std::vector<std::string>>& points, int jobs,
                                    const ProgressFn& progress = {});

// Throws the point's ConfigError again when it is invalid (where an invalid point is bad input).
void rethrow_if_invalid(const PointResult& r);
// When every point of two or more failed with the same error (same place, same message), the error is
// not the points' but the input's (a NaN in the file, a bad --set for all): throws it.
void rethrow_if_all_invalid_alike(const std::vector<PointResult>& points);

// One point, on the calling thread.
PointResult run_point(const std::filesystem::path& scenario, const std::vector<std::string>& base_sets,
                      const std::vector<std::string>& sets);

// Calls fn(worker, i) for i in [0, n) on `jobs` threads (worker in [0, jobs)), then progress(done, n)
// under a mutex. The first exception thrown by fn is rethrown after all workers stop.
void parallel_for(size_t n, int jobs, const std::function<void(size_t worker, size_t i)>& fn,
                  const ProgressFn& progress = {});

// Worker count for `-j 0` (auto): the hardware threads, at least 1.
int default_jobs();

}  // namespace plansim::advise
