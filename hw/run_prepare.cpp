// The GPU-free half of `plansim-hw run` (run_command.hpp): scenario -> compiled plan -> launches.
#include <fmt/format.h>

#include "hw/run_command.hpp"
#include "sim/plan/plan_compiler.hpp"

namespace plansim::hw {
namespace {

GemmDtype gemm_dtype_of(DType d) {
  switch (d) {
    case DType::fp32:
    case DType::tf32: return GemmDtype::kFp32;
    case DType::fp16: return GemmDtype::kFp16;
    case DType::bf16: return GemmDtype::kBf16;
    case DType::fp8: return GemmDtype::kFp8;
  }
  return GemmDtype::kBf16;
}

}  // namespace

std::vector<std::string> run_overrides(const RunArgs& args) {
  std::vector<std::string> out = args.sets;
  if (args.scale_layers > 0) out.push_back(fmt::format("model.layers={}", args.scale_layers));
  if (args.scale_batch > 0) out.push_back(fmt::format("training.global_batch={}", args.scale_batch));
  return out;
}

PreparedRun prepare_run(const RunArgs& args) {
  PreparedRun r{load_scenario(args.file, run_overrides(args)), {}, {}, GemmDtype::kBf16};
  r.plan = compile_plan(r.loaded.scenario, CompileOptions{.fold_tp = false});
  r.launches = plan_launches(r.plan);
  r.dtype = gemm_dtype_of(r.loaded.scenario.model.dtype);
  return r;
}

std::string gpu_shortfall(const CompiledPlan& plan, int visible, int processes, int gpus_per_process) {
  const int per = gpus_per_process > 0 ? gpus_per_process : (processes > 1 ? 1 : plan.world);
  if (per * processes == plan.world && per <= visible) return {};
  if (processes == 1)
    return fmt::format(
        "the plan needs {} GPUs (one per rank), this machine has {}; shrink it (--set nodes=N with smaller parallel "
        "degrees, on a topology with fewer GPUs per server if needed; --scale-layers/--scale-batch shrink the work) "
        "or run one process per GPU under MPI/Slurm",
        plan.world, visible);
  return fmt::format("the plan needs {} GPUs (one per rank), the job has {} processes x {} GPUs each = {} ({} visible "
                     "on this host)",
                     plan.world, processes, per, processes * per, visible);
}

}  // namespace plansim::hw
