#include "hw/run_command.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "hw/device.hpp"
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
  if (const std::string why = gpu_shortfall(run.plan, visible, procs.size(), args.gpus_per_process); !why.empty())
    throw std::invalid_argument(why);
  // Collective connections at communicator creation, not at first use inside an iteration (where a
  // blocking connect could deadlock the enqueueing threads); an explicit user setting wins.
  setenv("NCCL_RUNTIME_CONNECT", "0", 0);
  const int per = args.gpus_per_process > 0 ? args.gpus_per_process : (procs.size() > 1 ? 1 : run.plan.world);
  NcclWorld world(procs, per);
  const ExecuteOptions opt{run.dtype, args.warmup, args.iters};
  const auto spans = execute_on_gpus(run.launches, opt, procs, world);
  if (procs.rank() != 0) return 0;
  const ExecutionResult exec = measured_execution(run.plan, spans);
  Report report = build_report(run.loaded.scenario, run.plan, exec, run.loaded.topology.gpu_spec());
  report.notes = fmt::format("measured on {} x {} ({} process(es)); op times: mean of {} iterations after {} warm-up; "
                             "collective and p2p times include waiting for peers",
                             run.plan.world, device_info(world.device(0)).name, procs.size(), args.iters, args.warmup);
  if (args.json != "-" && args.trace != "-") write_text("-", report_text(report));
  if (!args.json.empty()) write_text(args.json, report_json(report));
  if (!args.trace.empty()) write_text(args.trace, trace_json(run.plan, exec, report, trace_ranks(run.plan, "executed")));
  return 0;
}

}  // namespace plansim::hw
