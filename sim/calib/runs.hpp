#pragma once
// Published end-to-end training runs (what users read from their Megatron / NeMo / torchtitan logs), the
// input of `plansim calibrate --runs` and `plansim validate --runs`. Schema (io/runs_yaml.hpp):
//
//   plansim_runs: 1
//   gpu: H100
//   runs:
//     - name: nemo-24.07/llama3-8b-8gpu
//       dataset: nemo-24.07                   # groups rows in the validation report
//       group: "sweep of table 3"             # optional: rows of one sweep whose plan order is compared
//       scenario: ../models/llama3-8b.yaml    # relative to the runs file
//       set: {parallel.cp: 2, training.global_batch: 128}
//       measured: {tokens_per_s_per_gpu: 12273}   # or iteration_time_s | tokens_per_s | tflops_per_gpu
//       flop_formula: plansim_model           # tflops_per_gpu only: plansim_model | megatron2021_eq3
//       source: "..."
#include <memory>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/io/scenario_loader.hpp"

namespace plansim::calib {

enum class RunMetric { iteration_time_s, tokens_per_s, tokens_per_s_per_gpu, tflops_per_gpu };
const char* to_string(RunMetric m);

struct MeasuredRun {
  std::string name, dataset, source, notes;
  std::string group;                      // rows of one published sweep (calib/plan_order.hpp); empty: none
  SourcePos pos;                          // the run's entry in the runs file
  std::string scenario_file;              // as resolved
  std::vector<std::string> overrides;     // `set`, as key=value
  std::shared_ptr<const LoadedScenario> loaded;  // the scenario with `set` applied
  RunMetric metric = RunMetric::iteration_time_s;
  double value = 0;                       // as published, in the metric's unit
  std::string flop_formula = "plansim_model";
  // The published figure as an iteration time (s): the quantity plansim predicts.
  [[nodiscard]] double measured_iteration_s() const;
};

struct RunSet {
  std::string file;
  std::string gpu;
  std::vector<MeasuredRun> runs;
};

// Throughput error of a prediction: predicted / published throughput − 1 (+ = plansim optimistic).
inline double throughput_error(double predicted_iteration_s, double measured_iteration_s) {
  return measured_iteration_s / predicted_iteration_s - 1;
}

}  // namespace plansim::calib
