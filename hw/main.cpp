// plansim-hw: microbenchmarks on real GPUs (NCCL, cuBLASLt GEMM, HBM, P2P) whose JSON feeds
// `plansim calibrate`, and `run`, which executes a scenario's compiled plan. See hw/README.md. Exit codes: 0 ok; 1 a result failed its check; 2 bad arguments;
// 4 no CUDA device; 5 a CUDA, NCCL or cuBLAS call failed; 77 `selftest` without a device (CTest: skipped).
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>
#include <optional>
#include <stdexcept>

#include "hw/bench_copy.hpp"
#include "hw/bench_gemm.hpp"
#include "hw/bench_nccl.hpp"
#include "hw/check.hpp"
#include "hw/device.hpp"
#include "hw/launch_env.hpp"
#include "hw/nccl_bootstrap.hpp"
#include "hw/run_command.hpp"
#include "hw/selftest.hpp"
#include "sim/core/error.hpp"

namespace {

constexpr int kExitWrong = 1, kExitUsage = 2, kExitNoDevice = 4, kExitGpu = 5, kExitSkip = 77;

struct SweepArgs {
  std::string min, max;
  std::size_t factor = 2;
};

void add_sweep(CLI::App* app, SweepArgs& s, const std::string& min, const std::string& max, std::size_t factor) {
  s.min = min;
  s.max = max;
  s.factor = factor;
  app->add_option("-b,--minbytes", s.min, "smallest size (bytes; K, M, G = powers of 1024)")->capture_default_str();
  app->add_option("-e,--maxbytes", s.max, "largest size (bytes; K, M, G = powers of 1024)")->capture_default_str();
  app->add_option("-f,--stepfactor", s.factor, "multiply the size by this factor each step")->capture_default_str();
}

void add_timing(CLI::App* app, int& iters, int& warmup, std::string& json) {
  app->add_option("-n,--iters", iters, "timed iterations per size")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("-w,--warmup_iters", warmup, "untimed warm-up iterations per size")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app->add_option("--json", json, "also write the results to this JSON file (schema: hw/README.md)");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace plansim::hw;
  CLI::App app{"plansim-hw: GPU microbenchmarks for calibrating plansim (see hw/README.md)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "plansim-hw 0.1.0");
  CLI::App* bench = app.add_subcommand("bench", "run a microbenchmark");
  bench->require_subcommand(1);

  NcclBenchOptions nccl;
  SweepArgs nccl_sweep;
  std::string op = "all_reduce";
  CLI::App* b_nccl = bench->add_subcommand("nccl", "NCCL collective sweep in nccl-tests' layout");
  b_nccl->add_option("--op", op, "all_reduce, all_gather, reduce_scatter, broadcast, reduce, all_to_all, send_recv")
      ->capture_default_str();
  add_sweep(b_nccl, nccl_sweep, "8", "128M", 2);
  b_nccl->add_option("-g,--ngpus", nccl.gpus, "GPUs per process (default: all visible; 1 per MPI process)")
      ->check(CLI::PositiveNumber);
  b_nccl->add_option("--timeout", nccl.timeout_s, "abort every rank (and the MPI job) after this many seconds")
      ->check(CLI::NonNegativeNumber);
  add_timing(b_nccl, nccl.iters, nccl.warmup, nccl.json);

  GemmBenchOptions gemm;
  std::string shapes, dtype = "bf16";
  CLI::App* b_gemm = bench->add_subcommand("gemm", "cuBLASLt GEMM throughput per shape");
  b_gemm->add_option("--shapes", shapes, "MxNxK,... (default: transformer GEMMs of typical models)");
  b_gemm->add_option("--dtype", dtype, "bf16, fp16, tf32, fp32 or fp8 (tf32/bf16 need sm_80+, fp8 sm_89+)")
      ->capture_default_str();
  b_gemm->add_option("-d,--device", gemm.device, "CUDA device")->capture_default_str();
  b_gemm->add_option("--peak-tflops", gemm.peak_tflops, "peak to compute efficiency against (default: device table)");
  add_timing(b_gemm, gemm.iters, gemm.warmup, gemm.json);

  CopyBenchOptions hbm, p2p;
  SweepArgs hbm_sweep, p2p_sweep;
  CLI::App* b_hbm = bench->add_subcommand("hbm", "device-to-device copy bandwidth on one GPU");
  add_sweep(b_hbm, hbm_sweep, "1M", "1G", 4);
  b_hbm->add_option("-d,--device", hbm.device, "CUDA device")->capture_default_str();
  add_timing(b_hbm, hbm.iters, hbm.warmup, hbm.json);
  CLI::App* b_p2p = bench->add_subcommand("p2p", "copy bandwidth and latency between every pair of local GPUs");
  add_sweep(b_p2p, p2p_sweep, "8", "256M", 8);
  add_timing(b_p2p, p2p.iters, p2p.warmup, p2p.json);

  RunArgs run;
  CLI::App* run_cmd = app.add_subcommand("run", "execute a scenario's per-rank programs on GPUs; report as `plansim run`");
  run_cmd->add_option("file", run.file, "scenario YAML (see scenarios/)")->required();
  run_cmd->add_option("--set", run.sets, "override a scenario key, e.g. --set parallel.dp=1 (repeatable)");
  run_cmd->add_option("--json", run.json, "write the report as JSON to FILE ('-' = stdout, replacing the text)");
  run_cmd->add_option("--trace", run.trace, "write a Perfetto/Chrome trace of the measured ops to FILE");
  run_cmd->add_option("--scale-layers", run.scale_layers, "run N layers (model.layers = N)")->check(CLI::Range(1, 1 << 20));
  run_cmd->add_option("--scale-batch", run.scale_batch, "run a global batch of N sequences (training.global_batch = N)")
      ->check(CLI::Range(1, 1 << 20));
  run_cmd->add_option("-w,--warmup", run.warmup, "untimed iterations")->capture_default_str()->check(CLI::NonNegativeNumber);
  run_cmd->add_option("-n,--iters", run.iters, "timed iterations (op times are their mean)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("--dry-run", run.dry_run, "print the communicators, launches and buffers per rank; no device needed");
  run_cmd->add_option("-g,--ngpus", run.gpus_per_process, "GPUs per process (default: the plan's ranks; 1 per MPI process)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_option("--devices", run.devices, "this process's GPUs, e.g. --devices 2,3 (default: see hw/README.md)")
      ->delimiter(',')
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_option("--timeout", run.timeout_s, "abort every rank (and the MPI job) after this many seconds")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_flag("--eager", run.eager, "enqueue every iteration instead of replaying a CUDA graph per rank");
  run_cmd->add_flag("--unfused-attention", run.unfused_attention,
                    "time attention as cuBLASLt GEMMs + softmax instead of cuDNN's fused SDPA");

  CLI::App* selftest = app.add_subcommand("selftest", "small checked runs of every bench (exit 77 without a GPU)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }

  try {
    auto sweep = [](const SweepArgs& s, auto& opt) {
      opt.min_bytes = parse_size(s.min);
      opt.max_bytes = parse_size(s.max);
      opt.factor = s.factor;
      size_sweep(opt.min_bytes, opt.max_bytes, opt.factor);  // validates before touching the GPU
    };
    if (b_nccl->parsed()) {
      const auto parsed = parse_op(op);
      if (!parsed) throw std::invalid_argument(fmt::format("unknown --op '{}'", op));
      nccl.op = *parsed;
      sweep(nccl_sweep, nccl);
    }
    if (b_gemm->parsed()) {
      gemm.dtype = parse_gemm_dtype(dtype);
      if (!shapes.empty()) gemm.shapes = parse_shapes(shapes);
    }
    if (b_hbm->parsed()) sweep(hbm_sweep, hbm);
    if (b_p2p->parsed()) sweep(p2p_sweep, p2p);
  } catch (const std::invalid_argument& e) {
    std::cerr << "plansim-hw: " << e.what() << '\n';
    return kExitUsage;
  }

  // `run`: the scenario is loaded, compiled and its launches planned before any device is touched.
  std::optional<PreparedRun> prepared;
  if (run_cmd->parsed()) try {
      prepared.emplace(prepare_run(run));
      if (run.dry_run) {
        std::cout << dry_run_summary(*prepared) << std::flush;
        return 0;
      }
    } catch (const plansim::ConfigError& e) {
      std::cerr << e.what() << '\n';
      return kExitUsage;
    } catch (const std::invalid_argument& e) {
      std::cerr << "plansim-hw: " << e.what() << '\n';
      return kExitUsage;
    } catch (const std::exception& e) {  // anything else the plan compiler throws: one line, not an abort
      std::cerr << "plansim-hw: cannot plan this scenario: " << e.what() << '\n';
      return kExitUsage;
    }

  // `run` drives 8-10 streams per rank, beyond CUDA's default 8 hardware queues (streams sharing a queue
  // serialise falsely; a spinning NCCL kernel can wait behind a queued GEMM). Set before any CUDA call;
  // an explicit setting wins; the measurement records it with every CUDA_* variable.
  if (prepared) setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);

  // gemm, hbm and p2p are one-process benches: under a launcher only its first task runs them (the others
  // would time the same GPUs at once).
  const bool single_process = b_gemm->parsed() || b_hbm->parsed() || b_p2p->parsed() || selftest->parsed();
  if (single_process && launcher_world_size(process_env()) > 1 && launcher_rank(process_env()) != 0) {
    std::cerr << "plansim-hw: this bench runs in one process; task " << launcher_rank(process_env())
              << " of the launcher leaves it to task 0\n";
    return 0;
  }

  try {
    auto same_job = [](const ProcessGroup& procs) {
#ifdef PLANSIM_HAVE_MPI
      constexpr bool with_mpi = true;
#else
      constexpr bool with_mpi = false;
#endif
      if (const std::string why = launcher_mismatch(process_env(), procs.size(), with_mpi); !why.empty())
        throw std::invalid_argument(why);
    };
    if (prepared) {
      ProcessGroup procs(&argc, &argv);
      same_job(procs);
      return execute_run(run, *prepared, procs);
    }
    require_devices();
    if (selftest->parsed()) {
      ProcessGroup procs(&argc, &argv);
      return run_selftest(procs) == 0 ? 0 : kExitWrong;
    }
    if (b_nccl->parsed()) {
      ProcessGroup procs(&argc, &argv);
      same_job(procs);
      return run_nccl_bench(nccl, procs);
    }
    if (b_gemm->parsed()) return run_gemm_bench(gemm);
    if (b_hbm->parsed()) return run_hbm_bench(hbm);
    if (b_p2p->parsed()) return run_p2p_bench(p2p);
  } catch (const NoDeviceError& e) {
    std::cerr << e.what() << '\n';
    return selftest->parsed() ? kExitSkip : kExitNoDevice;
  } catch (const GpuError& e) {
    std::cerr << "plansim-hw: " << e.what() << '\n';
    return kExitGpu;
  } catch (const std::invalid_argument& e) {
    std::cerr << "plansim-hw: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "plansim-hw: error: " << e.what() << '\n';
    return kExitGpu;
  }
  return 0;
}
