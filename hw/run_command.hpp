#pragma once
// `plansim-hw run SCENARIO`: the scenario compiled by the same plan compiler as `plansim run`
// (sim/plan, every rank's program: no TP folding), executed on GPUs (plan_executor.hpp) and reported
// with sim/report's writers, so `plansim validate --sim A.json --measured B.json` compares the two.
#include <string>
#include <vector>

#include "hw/kernels.hpp"
#include "hw/launch_plan.hpp"
#include "hw/nccl_bootstrap.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/plan/program.hpp"

namespace plansim::hw {

struct RunArgs {
  std::string file;
  std::vector<std::string> sets;  // "key.path=value"
  std::string json, trace;        // '-' = stdout
  int scale_layers = 0;           // > 0: model.layers = N
  int scale_batch = 0;            // > 0: training.global_batch = N
  int warmup = 1, iters = 3;
  int gpus_per_process = 0;       // 0: the plan's world with one process, 1 per process under MPI
  std::vector<int> devices{};     // --devices: this process's GPUs (default: see launch_env.hpp)
  double timeout_s = 0;           // --timeout: abort every rank when the run takes longer (0 = none)
  bool eager = false;             // --eager: enqueue every iteration instead of replaying a CUDA graph
  bool unfused_attention = false; // --unfused-attention: cuBLASLt + softmax instead of cuDNN's fused SDPA
  bool dry_run = false;           // print what would be launched; no device
};

// The scenario overrides that --set, --scale-layers and --scale-batch amount to, in that order.
std::vector<std::string> run_overrides(const RunArgs& args);

struct PreparedRun {
  LoadedScenario loaded;
  CompiledPlan plan;
  LaunchPlan launches;
  GemmDtype dtype = GemmDtype::kBf16;
};

// GPU-free: loads, compiles and plans the launches. Throws ConfigError (scenario) or
// std::invalid_argument (a plan the hardware cannot run).
PreparedRun prepare_run(const RunArgs& args);

// --dry-run: communicators, split rounds, launches by kind, streams and buffer bytes per rank (stdout).
std::string dry_run_summary(const PreparedRun& run);

// "the plan needs N GPUs ... this machine has M ..." when `visible` GPUs cannot host the plan with
// `processes` processes of `gpus_per_process` GPUs; empty when they can.
std::string gpu_shortfall(const CompiledPlan& plan, int visible, int processes, int gpus_per_process);

// Needs a device: executes, prints the report, writes --json/--trace on process 0. Returns the exit code.
int execute_run(const RunArgs& args, const PreparedRun& run, const ProcessGroup& procs);

}  // namespace plansim::hw
