// `plansim-hw run` executes exactly the simulator's programs: the launches the GPU executor walks
// (launch_plan.hpp) are compared op by op with the programs of the plan compiler, and that plan with
// the one `plansim run` simulates. Measured times go through sim/report's writers and back through
// `plansim validate`'s reader. GPU-free.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "hw/launch_plan.hpp"
#include "hw/measured.hpp"
#include "hw/run_command.hpp"
#include "sim/calib/validate.hpp"
#include "sim/io/report_timings_reader.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/report/simulate_plan.hpp"

using namespace plansim;
using namespace plansim::hw;

namespace {

std::string scenario(const std::string& name) { return std::string(PLANSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml"; }

// Every launch is its program op: same kind, stream, deps, group (same members), bytes; compute
// kernels carry exactly the cost's FLOPs (as GEMMs) and the FLOP-free kernels' bytes (as copies).
void check_launches_are_programs(const CompiledPlan& plan, const LaunchPlan& lp) {
  REQUIRE(lp.world == plan.world);
  REQUIRE(lp.ranks.size() == plan.programs.size());
  for (size_t g = 0; g < plan.groups.size(); ++g) CHECK(lp.communicators[g].ranks == plan.groups[g].ranks);
  size_t launches = 0;
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const Program& p = plan.programs[r];
    const RankLaunches& rl = lp.ranks[r];
    REQUIRE(rl.rank == p.rank);
    REQUIRE(rl.launches.size() == p.ops.size());
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const ProgramOp& op = p.ops[i];
      const Launch& l = rl.launches[i];
      INFO("rank " << p.rank << " op " << i);
      CHECK(l.op == i);
      CHECK(l.kind == op.kind);
      CHECK(l.bytes == op.bytes);
      const std::vector<uint32_t> deps(p.deps.begin() + op.dep_begin, p.deps.begin() + op.dep_begin + op.dep_count);
      CHECK(l.waits == deps);
      if (op.kind == OpKind::send || op.kind == OpKind::recv) {
        CHECK(l.stream >= static_cast<uint32_t>(kStreamCount));
        CHECK(l.stream < rl.streams);
        CHECK(l.peer == op.peer);
        const std::vector<uint32_t> pair = op.kind == OpKind::send ? std::vector<uint32_t>{p.rank, op.peer}
                                                                    : std::vector<uint32_t>{op.peer, p.rank};
        CHECK(lp.communicators[l.communicator].ranks == pair);
      } else {
        CHECK(l.stream == static_cast<uint32_t>(op.stream));
      }
      if (op.kind == OpKind::collective) {
        CHECK(l.comm == op.comm);
        CHECK(l.communicator == op.group);
      }
      if (op.kind == OpKind::compute) {
        const ComputeCost& cost = plan.costs[op.cost];
        double flops = 0, bytes = 0, want_bytes = 0;
        int attention = 0, want_attention = 0;
        for (const KernelLaunch& k : l.kernels) {
          flops += k.flops();
          if (k.kind == KernelKind::copy) bytes += k.bytes;
          if (k.kind == KernelKind::attention) ++attention;
        }
        for (const OpCost& k : cost.kernels) {
          if (k.flops == 0) want_bytes += k.hbm_bytes;
          if (k.cls == OpClass::attention) ++want_attention;
        }
        CHECK(flops == Approx(cost.flops).epsilon(1e-12));
        CHECK(bytes == Approx(want_bytes).epsilon(1e-12));
        CHECK(attention == want_attention);  // one fused SDPA per attention kernel of the cost
      }
      ++launches;
    }
  }
  CHECK(launches > 0);
  // Split rounds: every created communicator exactly once, ranks disjoint within a round; a communicator
  // is created when it has more than one rank and some launch uses it.
  std::vector<int> seen(lp.communicators.size(), 0), used(lp.communicators.size(), 0);
  for (const RankLaunches& rl : lp.ranks)
    for (const Launch& l : rl.launches)
      if (l.kind != OpKind::compute) used[l.communicator] = 1;
  for (size_t c = 0; c < lp.communicators.size(); ++c)
    CHECK(lp.communicators[c].created == (used[c] && lp.communicators[c].ranks.size() > 1));
  for (const auto& round : lp.split_rounds) {
    std::vector<int> covered(static_cast<size_t>(lp.world), 0);
    for (uint32_t c : round) {
      ++seen[c];
      for (uint32_t r : lp.communicators[c].ranks) CHECK(++covered[r] == 1);
    }
  }
  for (size_t c = 0; c < lp.communicators.size(); ++c) CHECK(seen[c] == (lp.communicators[c].created ? 1 : 0));
}

bool same_op(const ProgramOp& a, const ProgramOp& b) {
  return a.kind == b.kind && a.stream == b.stream && a.phase == b.phase && a.recompute == b.recompute &&
         a.comm == b.comm && a.cost == b.cost && a.group == b.group && a.seq == b.seq && a.peer == b.peer &&
         a.tag == b.tag && a.bytes == b.bytes && a.micro_batch == b.micro_batch && a.dep_begin == b.dep_begin &&
         a.dep_count == b.dep_count;
}

}  // namespace

TEST_CASE("hw run executes the simulator's programs: pipeline 4 x 16 (PP + DP)", "[hw][run]") {
  RunArgs args;
  args.file = scenario("seed-pipeline-4x16");
  const PreparedRun hw = prepare_run(args);
  check_launches_are_programs(hw.plan, hw.launches);
  // The plan `plansim run` simulates is the one hw runs, op for op (TP 1: nothing to fold; DP folding
  // off, since it executes replica 0 only and hw runs every rank).
  LoadedScenario s = load_scenario(args.file);
  const PlanRun sim = simulate_plan(s.scenario, s.topology, SimulateOptions{.symmetry = true, .op_records = true, .fold_dp = false});
  REQUIRE(sim.plan.programs.size() == hw.plan.programs.size());
  for (size_t r = 0; r < sim.plan.programs.size(); ++r) {
    const auto& a = sim.plan.programs[r];
    const auto& b = hw.plan.programs[r];
    REQUIRE(a.ops.size() == b.ops.size());
    CHECK(a.deps == b.deps);
    for (size_t i = 0; i < a.ops.size(); ++i) CHECK(same_op(a.ops[i], b.ops[i]));
  }
  // PP stages 0..3 talk to their neighbours only: 2 x 3 channels per DP replica.
  CHECK(hw.launches.communicators.size() == hw.plan.groups.size() + 2 * 3 * 2);
  // The 4 DP pairs come from one split; channels s->s+1 of both replicas share a split with the
  // non-adjacent ones (0->1 with 2->3): far fewer splits than communicators.
  CHECK(hw.launches.split_rounds.size() < hw.launches.communicators.size() / 2);
}

TEST_CASE("hw run executes the simulator's programs: TP 8 (+DP) and ZeRO-1 with selective recompute", "[hw][run]") {
  for (const char* name : {"seed-tp8-nvlink", "seed-small-batch"}) {
    INFO(name);
    RunArgs args;
    args.file = scenario(name);
    args.scale_layers = 4;
    const PreparedRun hw = prepare_run(args);
    CHECK(hw.loaded.scenario.model.layers == 4);
    check_launches_are_programs(hw.plan, hw.launches);
    // Unfolded simulation (symmetry off) compiles the same programs as hw.
    const PlanRun sim = simulate_plan(hw.loaded.scenario, hw.loaded.topology, SimulateOptions{false});
    REQUIRE(sim.plan.programs.size() == hw.plan.programs.size());
    for (size_t r = 0; r < sim.plan.programs.size(); ++r) {
      REQUIRE(sim.plan.programs[r].ops.size() == hw.plan.programs[r].ops.size());
      for (size_t i = 0; i < sim.plan.programs[r].ops.size(); ++i)
        CHECK(same_op(sim.plan.programs[r].ops[i], hw.plan.programs[r].ops[i]));
    }
  }
}

TEST_CASE("hw run executes the simulator's programs: zero-bubble, interleaved, SP, CP, MoE/EP, ZeRO-3, full recompute", "[hw][run]") {
  // The tiny test scenario on 8 one-GPU servers, with each feature switched on by --set.
  const std::vector<std::vector<std::string>> variants = {
      {"nodes=2", "schedule.kind=zb-h1", "training.global_batch=8"},  // split input/weight gradients
      {"nodes=8", "parallel.pp=2", "parallel.dp=4", "schedule.kind=interleaved", "schedule.virtual_stages=2",
       "training.global_batch=8"},
      {"nodes=8", "parallel.tp=2", "parallel.pp=2", "parallel.dp=2", "parallel.sequence_parallel=true",
       "training.recompute=full"},
      {"nodes=8", "parallel.cp=2", "parallel.pp=2", "parallel.dp=2", "parallel.zero=3"},
      {"nodes=8", "parallel.pp=1", "parallel.dp=8", "parallel.ep=4", "model.moe.experts=8", "model.moe.top_k=2",
       "training.global_batch=8", "parallel.zero=1", "training.recompute=selective"},
  };
  for (const auto& sets : variants) {
    RunArgs args;
    args.file = std::string(PLANSIM_SOURCE_DIR) + "/hw/tests/data/tiny-pp2.yaml";
    args.sets = sets;
    INFO(sets.back());
    const PreparedRun hw = prepare_run(args);
    check_launches_are_programs(hw.plan, hw.launches);
    const PlanRun sim = simulate_plan(hw.loaded.scenario, hw.loaded.topology, SimulateOptions{false});
    REQUIRE(sim.plan.programs.size() == hw.plan.programs.size());
    for (size_t r = 0; r < sim.plan.programs.size(); ++r) {
      REQUIRE(sim.plan.programs[r].ops.size() == hw.plan.programs[r].ops.size());
      CHECK(sim.plan.programs[r].deps == hw.plan.programs[r].deps);
    }
  }
}

TEST_CASE("hw run refuses a TP-folded plan and plans buffers for the largest op", "[hw][run]") {
  LoadedScenario s = load_scenario(scenario("seed-tp8-nvlink"), {"model.layers=2"});
  const CompiledPlan folded = compile_plan(s.scenario, CompileOptions{.fold_tp = true});
  REQUIRE(folded.fold > 1);
  CHECK_THROWS_AS(plan_launches(folded), std::invalid_argument);
  const LaunchPlan lp = plan_launches(compile_plan(s.scenario));
  // The logits GEMM (tokens x hidden)·(hidden x vocab/tp) has the largest output: tokens·vocab/8.
  const ModelSpec& m = s.scenario.model;
  const double tokens = static_cast<double>(s.scenario.training.micro_batch * m.seq_len);
  CHECK(lp.gemm_d_elems >= tokens * static_cast<double>(m.vocab) / 8);
  // Adam over the rank's parameters moves far more than a chunk; the copy buffers stay at one chunk.
  CHECK(lp.copy_bytes == kCopyChunkBytes);
}

TEST_CASE("hw run: shortfall of GPUs is stated with both counts", "[hw][run]") {
  RunArgs args;
  args.file = scenario("seed-pipeline-4x16");
  const PreparedRun hw = prepare_run(args);
  REQUIRE(hw.plan.world == 8);
  CHECK(gpu_shortfall(hw.plan, 8, 1, 0).empty());
  CHECK(gpu_shortfall(hw.plan, 1, 8, 0).empty());  // 8 MPI processes with one GPU each
  const std::string why = gpu_shortfall(hw.plan, 2, 1, 0);
  CHECK(why.find("needs 8 GPUs") != std::string::npos);
  CHECK(why.find("has 2") != std::string::npos);
  CHECK_FALSE(gpu_shortfall(hw.plan, 8, 2, 1).empty());  // 2 processes x 1 GPU
  CHECK(run_overrides(RunArgs{"f", {"a=1"}, "", "", 3, 5}) ==
        std::vector<std::string>{"a=1", "model.layers=3", "training.global_batch=5"});
}

TEST_CASE("hw run: measured spans become the simulator's report and validate against it", "[hw][run]") {
  RunArgs args;
  args.file = scenario("seed-pipeline-4x16");
  args.scale_layers = 4;
  const PreparedRun hw = prepare_run(args);
  // Every rank simulated (no DP folding), so every measured op has its simulated twin.
  const PlanRun sim = simulate_plan(hw.loaded.scenario, hw.loaded.topology,
                                    SimulateOptions{.symmetry = true, .op_records = true, .fold_dp = false});
  // "Measure" every op at 1.25 x the simulated times: every class and the iteration are off by -20 %.
  std::vector<std::vector<OpSpan>> spans;
  for (const auto& t : sim.exec.timings) {
    spans.emplace_back();
    for (const OpTiming& o : t) spans.back().push_back({1.25 * o.start.seconds(), 1.25 * o.end.seconds()});
  }
  const ExecutionResult exec = measured_execution(hw.plan, spans);
  CHECK(exec.iteration.seconds() == Approx(1.25 * sim.exec.iteration.seconds()).epsilon(1e-9));
  const Report measured = build_report(hw.loaded.scenario, hw.plan, exec, hw.loaded.topology.gpu_spec());
  const auto sim_t = io::read_report_timings_text(report_json(sim.report), "sim.json");
  const auto hw_t = io::read_report_timings_text(report_json(measured), "hw.json");
  REQUIRE(hw_t.ops.size() == sim_t.ops.size());
  const calib::Validation v = calib::validate(sim_t, hw_t, 0.1);
  CHECK(v.unmatched_sim == 0);
  CHECK(v.unmatched_measured == 0);
  CHECK(v.end_to_end_rel == Approx(-0.2).epsilon(1e-6));
  for (const auto& [cls, e] : v.classes) {
    INFO(cls);
    CHECK(e.median_abs_rel == Approx(0.2).epsilon(1e-6));
  }
  CHECK_FALSE(v.within_tolerance);
  // Means over iterations.
  const auto mean = mean_spans({{{{0, 1}, {1, 3}}}, {{{0, 3}, {3, 5}}}});
  CHECK(mean[0][0].end_s == 2);
  CHECK(mean[0][1].start_s == 2);
  CHECK(mean[0][1].end_s == 4);
}

TEST_CASE("hw run executes the simulator's programs: DualPipe (two-way PP lanes) and Llama 3 70B", "[hw][run]") {
  for (const char* name : {"dualpipe-moe-64-h100", "llama3-70b-64-h100"}) {
    INFO(name);
    RunArgs args;
    args.file = scenario(name);
    args.scale_layers = 8;
    const PreparedRun hw = prepare_run(args);
    check_launches_are_programs(hw.plan, hw.launches);
    const PlanRun sim = simulate_plan(hw.loaded.scenario, hw.loaded.topology, SimulateOptions{false});
    REQUIRE(sim.plan.programs.size() == hw.plan.programs.size());
    for (size_t r = 0; r < sim.plan.programs.size(); ++r) {
      REQUIRE(sim.plan.programs[r].ops.size() == hw.plan.programs[r].ops.size());
      CHECK(sim.plan.programs[r].deps == hw.plan.programs[r].deps);
    }
  }
}

TEST_CASE("hw run executes the fine-tuning programs: no frozen weight-gradient GEMMs, LoRA adapter GEMMs run",
          "[hw][run][finetune]") {
  // Per micro-batch and layer (gated MLP, LoRA on QKV and the projection: T = 2 targets, recompute full):
  // forward 4 base + 2T adapter GEMMs, recomputed once; backward 2T adapter weight gradients and
  // 4 + 2T data gradients, less layer 0's QKV and its A (nothing below is trained); the logits GEMM
  // forward and its data gradient only. 28 per layer. A full fine-tune: 4 + 4 + 2·4 = 16 per layer + 3.
  const int layers = 4;
  auto gemm_launches = [](const PreparedRun& hw, size_t rank) {
    int n = 0;
    for (const Launch& l : hw.launches.ranks[rank].launches)
      for (const KernelLaunch& k : l.kernels) n += k.kind == KernelKind::gemm ? 1 : 0;
    return n;
  };
  for (const char* name : {"finetune-lora-7b-ethernet", "finetune-full-7b-ethernet"}) {
    INFO(name);
    RunArgs args;
    args.file = scenario(name);
    args.scale_layers = layers;
    const PreparedRun hw = prepare_run(args);
    check_launches_are_programs(hw.plan, hw.launches);
    const PlanRun sim = simulate_plan(hw.loaded.scenario, hw.loaded.topology, SimulateOptions{false});
    REQUIRE(sim.plan.programs.size() == hw.plan.programs.size());
    for (size_t r = 0; r < sim.plan.programs.size(); ++r) {
      REQUIRE(sim.plan.programs[r].ops.size() == hw.plan.programs[r].ops.size());
      for (size_t i = 0; i < sim.plan.programs[r].ops.size(); ++i)
        CHECK(same_op(sim.plan.programs[r].ops[i], hw.plan.programs[r].ops[i]));
    }
    const int mbs = hw.plan.micro_batches;
    const bool lora = std::string(name).find("lora") != std::string::npos;
    const int want = lora ? 28 * layers * mbs : (16 * layers + 3) * mbs;
    for (size_t r = 0; r < hw.launches.ranks.size(); ++r) CHECK(gemm_launches(hw, r) == want);
  }
}
