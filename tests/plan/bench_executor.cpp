// The plan pipeline without the network ([bench]: not run by ctest):
//   build/tests/plansim_tests "[bench][executor]"
// Compiles a large scenario, executes it as `plansim run` does (TP folded, TP collectives memoised on
// the scenario's topology) except that every other transfer takes a closed-form time (FixedComm:
// 10 us + bytes at 100 GB/s) instead of going through the collective runner and the flow network,
// and builds the report and its JSON, printing the CPU time of each phase: the cost of the executor, event
// queue, compiler and report alone, which `plansim run` pays on top of the network model.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <ctime>
#include <string>

#include "sim/compute/compute_model.hpp"
#include "sim/io/scenario_loader.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/symmetry.hpp"
#include "sim/report/report.hpp"
#include "tests/support/fixed_comm.hpp"

using namespace plansim;

namespace {

double cpu_now() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

void bench(const std::string& name) {
  LoadedScenario s = load_scenario(std::string(PLANSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
  const double t0 = cpu_now();
  const CompiledPlan plan = compile_plan(s.scenario, CompileOptions{true});
  const double t1 = cpu_now();
  const ComputeModel compute(ComputeParams::defaults(s.topology.gpu_spec(), s.scenario.model.dtype).with(s.scenario.compute));
  Simulation sim;
  testing::FixedComm comm(sim, [](const CommRequest& q) { return Time::us(10) + transfer_time(q.bytes, GBps(100)); });
  MemoizedTpComm memo(comm, sim, s.topology);
  const ExecutionResult exec = execute(plan, compute, memo, sim);
  const double t2 = cpu_now();
  const Report report = build_report(s.scenario, plan, exec, s.topology.gpu_spec());
  const double t3 = cpu_now();
  const size_t json_bytes = report_json(report).size();
  const double t4 = cpu_now();
  size_t ops = 0;
  for (const Program& p : plan.programs) ops += p.ops.size();
  fmt::print("{}: {} ops, {} events, {} transfers | CPU compile {:.3f} s, execute {:.3f} s ({:.0f} ns per event), "
             "report {:.3f} s, JSON {:.3f} s ({:.0f} MB)\n",
             name, ops, exec.events, exec.comm_calls, t1 - t0, t2 - t1, (t2 - t1) * 1e9 / static_cast<double>(exec.events),
             t3 - t2, t4 - t3, static_cast<double>(json_bytes) / 1e6);
  CHECK(report.ops.size() == ops);
  CHECK(exec.comm_calls == static_cast<uint64_t>(comm.calls) + memo.hits() + memo.misses());
}

}  // namespace

TEST_CASE("bench: plan pipeline without the network, GPT-3 175B on 1024 A100", "[bench][executor]") {
  bench("gpt3-175b-1024-a100");
}
TEST_CASE("bench: plan pipeline without the network, Llama 3 405B on 16384 H100", "[bench][executor]") {
  bench("llama3-405b-16k-h100");
}
