// The GPU-free half of `plansim-hw run` (run_command.hpp): scenario -> compiled plan -> launches.
#include <fmt/format.h>

#include <array>

#include "hw/run_command.hpp"
#include "sim/plan/plan_compiler.hpp"

namespace plansim::hw {
namespace {

GemmDtype gemm_dtype_of(DType d) {
  switch (d) {
    case DType::fp32: return GemmDtype::kFp32;
    case DType::tf32: return GemmDtype::kTf32;
    case DType::fp16: return GemmDtype::kFp16;
    case DType::bf16: return GemmDtype::kBf16;
    case DType::fp8: return GemmDtype::kFp8;
  }
  return GemmDtype::kBf16;
}

}  // namespace

std::vector<std::string> run_overrides(const RunArgs& args) {
  std::vector<std::string> out = args.sets;
  for (std::string& s : scale_overrides(args.scale_layers, args.scale_batch)) out.push_back(std::move(s));
  return out;
}

PreparedRun prepare_run(const RunArgs& args) {
  PreparedRun r{load_scenario(args.file, run_overrides(args)), {}, {}, GemmDtype::kBf16};
  r.plan = compile_plan(r.loaded.scenario, CompileOptions{.fold_tp = false});
  r.dtype = gemm_dtype_of(r.loaded.scenario.model.dtype);
  r.launches = plan_launches(r.plan, r.dtype);
  return r;
}

std::string dry_run_summary(const PreparedRun& run) {
  const LaunchPlan& lp = run.launches;
  const ElementBytes sz = element_bytes(run.dtype);
  // Attention: Q, K, V, O, dO, dQ, dK, dV of the largest call, plus its fp32 statistics.
  const double attention = 8 * lp.attention_qkv_elems * sz.cd + 4 * lp.attention_stats_elems;
  const double buffers = (lp.gemm_a_elems + lp.gemm_b_elems) * sz.ab + lp.gemm_d_elems * sz.cd + attention +
                         2 * lp.copy_bytes + 2 * lp.comm_bytes;
  size_t created = 0, lanes = 0;
  for (size_t c = 0; c < lp.communicators.size(); ++c) {
    if (lp.communicators[c].created) ++created;
    if (c >= run.plan.groups.size()) ++lanes;
  }
  std::string out = fmt::format("plansim-hw run (dry run): {}: {} ranks, one GPU each, {} GEMMs\n",
                                run.loaded.scenario.name, lp.world, to_string(run.loaded.scenario.model.dtype));
  out += fmt::format("  communicators  {} created of {} ({} plan groups + {} PP lanes; groups of one rank or "
                     "unused get none) from {} ncclCommSplit rounds\n",
                     created, lp.communicators.size(), run.plan.groups.size(), lanes, lp.split_rounds.size());
  constexpr double GiB = 1024.0 * 1024 * 1024;
  out += fmt::format("  buffers        {:.3f} GiB per rank: GEMM A {:.3f} + B {:.3f} + D {:.3f}, attention {:.3f}, "
                     "copy 2 x {:.3f}, send/receive 2 x {:.3f} GiB\n",
                     buffers / GiB, lp.gemm_a_elems * sz.ab / GiB, lp.gemm_b_elems * sz.ab / GiB,
                     lp.gemm_d_elems * sz.cd / GiB, attention / GiB, lp.copy_bytes / GiB, lp.comm_bytes / GiB);
  out += "  rank  streams  launches  compute   gemms  attention  copies  collectives  sends  recvs\n";
  for (const RankLaunches& rl : lp.ranks) {
    std::array<size_t, 4> ops{};
    std::array<size_t, kKernelKinds> kernels{};
    for (const Launch& l : rl.launches) {
      ++ops[static_cast<size_t>(l.kind)];
      for (const KernelLaunch& k : l.kernels) ++kernels[static_cast<size_t>(k.kind)];
    }
    out += fmt::format("  {:>4}  {:>7}  {:>8}  {:>7}  {:>6}  {:>9}  {:>6}  {:>11}  {:>5}  {:>5}\n", rl.rank, rl.streams,
                       rl.launches.size(), ops[0], kernels[0], kernels[1], kernels[2], ops[1], ops[2], ops[3]);
  }
  return out;
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
