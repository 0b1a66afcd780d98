#include "sim/calib/runs.hpp"

#include "sim/core/assert.hpp"
#include "sim/model/transformer.hpp"

namespace plansim::calib {

const char* to_string(RunMetric m) {
  switch (m) {
    case RunMetric::iteration_time_s: return "iteration_time_s";
    case RunMetric::tokens_per_s: return "tokens_per_s";
    case RunMetric::tokens_per_s_per_gpu: return "tokens_per_s_per_gpu";
    case RunMetric::tflops_per_gpu: return "tflops_per_gpu";
  }
  return "?";
}

double MeasuredRun::measured_iteration_s() const {
  if (metric == RunMetric::iteration_time_s) return value;
  PLANSIM_ASSERT(loaded, "a run's scenario is loaded before its throughput is converted");
  const Scenario& s = loaded->scenario;
  const double gpus = static_cast<double>(s.parallel.world());
  switch (metric) {
    case RunMetric::iteration_time_s: return value;
    case RunMetric::tokens_per_s: return s.tokens_per_iteration() / value;
    case RunMetric::tokens_per_s_per_gpu: return s.tokens_per_iteration() / (value * gpus);
    case RunMetric::tflops_per_gpu: {
      const double flops = flop_formula == "megatron2021_eq3" ? megatron_eq3_flops(s.model, s.training.global_batch)
                                                              : model_flops_per_iteration(s.model, s.training.global_batch);
      return flops / (value * 1e12 * gpus);
    }
  }
  PLANSIM_ASSERT(false, "unknown run metric");
  return 0;
}

}  // namespace plansim::calib
