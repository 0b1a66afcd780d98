#include "hw/run_command.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "hw/cuda_backend.hpp"
#include "hw/device.hpp"
#include "hw/environment.hpp"
#include "hw/measured.hpp"
#include "hw/plan_executor.hpp"
#include "sim/report/report.hpp"

namespace plansim::hw {
namespace {

void write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::invalid_argument(fmt::format("cannot write {}", path));
}

}  // namespace

int execute_run(const RunArgs& args, const PreparedRun& run, const ProcessGroup& procs) {
  const int visible = require_devices();
  const int per = !args.devices.empty()        ? static_cast<int>(args.devices.size())
                  : args.gpus_per_process > 0 ? args.gpus_per_process
                                              : (procs.size() > 1 ? 1 : run.plan.world);
  if (const std::string why = gpu_shortfall(run.plan, visible, procs.size(), per); !why.empty())
    throw std::invalid_argument(why);
  NcclWorld world(procs, per, args.devices, args.timeout_s, true);
  std::vector<int> devices, ranks;
  for (int i = 0; i < world.local_count(); ++i) {
    devices.push_back(world.device(i));
    ranks.push_back(world.global_rank(i));
    const DeviceInfo dev = device_info(world.device(i));
    const int cc = dev.cc_major * 10 + dev.cc_minor;
    if (cc < min_compute_capability(run.dtype))
      throw std::invalid_argument(fmt::format("the scenario's {} GEMMs need compute capability {}.{} or newer; GPU {} "
                                              "({}) is {}.{}",
                                              to_string(run.loaded.scenario.model.dtype),
                                              min_compute_capability(run.dtype) / 10,
                                              min_compute_capability(run.dtype) % 10, world.device(i), dev.name,
                                              dev.cc_major, dev.cc_minor));
  }
  ExecuteOptions opt;
  opt.dtype = run.dtype;
  opt.warmup = args.warmup;
  opt.iters = args.iters;
  opt.graph = !args.eager;
  opt.fused_attention = !args.unfused_attention;
  opt.timeout_s = args.timeout_s;
  NvmlSampler sampler(devices);
  ExecuteResult result = execute_on_gpus(run.launches, opt, procs, world);
  const nlohmann::json local = local_environment(ranks, devices, sampler.stop());
  const TopologyFacts facts = topology_facts(run.loaded.topology);
  nlohmann::json environment = gather_environment(procs, local, &facts, devices);
  if (procs.rank() != 0) return 0;
  for (auto& it : result.per_iteration) align_communication_starts(run.plan, it);
  const auto spans = mean_spans(result.per_iteration);
  const IterationStats stats = iteration_stats(result.per_iteration);
  const ExecutionResult exec = measured_execution(run.plan, spans);
  Report report = build_report(run.loaded.scenario, run.plan, exec, run.loaded.topology.gpu_spec());
  const bool fused = opt.fused_attention && have_fused_attention();
  report.notes = fmt::format(
      "measured on {} x {} ({} process(es)); op times: mean of {} iterations after {} warm-up ({}); iteration "
      "min/median/max {:.3f}/{:.3f}/{:.3f} ms; collective and p2p starts moved to the last member's arrival; "
      "attention: {}",
      run.plan.world, device_info(world.device(0)).name, procs.size(), args.iters, args.warmup,
      opt.graph ? "CUDA graph per rank" : "eager enqueue", stats.min * 1e3, stats.median * 1e3, stats.max * 1e3,
      fused ? "cuDNN fused SDPA (causal)" : "UNFUSED fallback (cuBLASLt QK^T, softmax, A.V; no cuDNN)");
  if (args.json != "-" && args.trace != "-") write_text("-", report_text(report));
  if (!args.json.empty()) {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(report_json(report));
    doc["measurement"] = {{"iterations_s", stats.seconds},
                          {"iteration_min_s", stats.min},
                          {"iteration_median_s", stats.median},
                          {"iteration_max_s", stats.max},
                          {"warmup_iterations", args.warmup},
                          {"timed_iterations", args.iters},
                          {"cuda_graph", opt.graph},
                          {"attention", fused ? "cudnn_fused_sdpa" : "unfused_fallback"}};
    doc["environment"] = environment;
    write_text(args.json, doc.dump(2) + "\n");
  }
  if (!args.trace.empty()) write_text(args.trace, trace_json(run.plan, exec, report, trace_ranks(run.plan, "executed")));
  return 0;
}

}  // namespace plansim::hw
