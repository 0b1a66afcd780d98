// Activation offload (training.activation_offload_layers; README "Activation offload"): the copies the
// plan emits, their timing against closed forms, the memory they free, and the host link rate a
// topology gives them.
#include <catch2/catch.hpp>

#include <string>

#include "tests/support/cluster.hpp"
#include "tests/support/fixed_comm.hpp"
#include "tests/support/small_scenario.hpp"

#include "sim/io/topology_loader.hpp"
#include "sim/topo/cluster_spec.hpp"
#include "sim/model/memory.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/report/report.hpp"

using namespace plansim;

namespace {

// 8 layers, one GPU, one micro-batch, no recompute.
Scenario one_gpu(int offload) {
  Scenario s = testing::small_scenario(1, 1, 1, 1);
  s.training.activation_offload_layers = offload;
  return s;
}

double layer_bytes(const Scenario& s) {
  const TrainingSpec& t = s.training;
  return activation_bytes_per_layer(s.model, t.micro_batch, s.parallel, t.recompute, t.materialised_attention()).value();
}

// No launch overhead, no comm slowdown: exact closed forms. `host` per direction.
ComputeParams params(Rate host) {
  ComputeParams p = ComputeParams::defaults(testing::test_a100(), DType::bf16);
  p.launch_overhead = Time::zero();
  p.comm_slowdown = 0;
  p.host_link = host;
  return p;
}

struct Run {
  CompiledPlan plan;
  ExecutionResult exec;
  Report report;
};

Run run(const Scenario& s, Rate host) {
  Run r{compile_plan(s), {}, {}};
  Simulation sim;
  testing::FixedComm comm(sim, [](const CommRequest&) { return Time::zero(); });
  r.exec = execute(r.plan, ComputeModel(params(host)), comm, sim);
  r.report = build_report(s, r.plan, r.exec, testing::test_a100());
  return r;
}

// The durations of rank 0's forward (phase F) and backward (phase B) compute ops, in program order.
std::vector<Time> durations(const Run& r, Phase ph) {
  std::vector<Time> out;
  const Program& p = r.plan.programs[0];
  for (size_t i = 0; i < p.ops.size(); ++i)
    if (p.ops[i].kind == OpKind::compute && p.ops[i].phase == ph)
      out.push_back(r.exec.timings[0][i].end - r.exec.timings[0][i].start);
  return out;
}

}  // namespace

TEST_CASE("activation offload: one copy out and one back per offloaded layer, min(N, k - 1) of a chunk's k",
          "[plan][offload]") {
  for (const auto& [asked, expected] : {std::pair{0, 0}, {1, 1}, {3, 3}, {7, 7}, {20, 7}}) {
    const Scenario s = one_gpu(asked);
    const CompiledPlan plan = compile_plan(s);
    int out = 0, back = 0;
    for (const ProgramOp& op : plan.programs[0].ops) {
      if (op.kind != OpKind::host_copy) continue;
      CHECK(op.bytes == Approx(layer_bytes(s)).epsilon(1e-12));
      CHECK(plan.costs[op.cost].kernels.at(0).cls == OpClass::host_copy);
      if (op.stream == StreamKind::d2h) ++out;
      if (op.stream == StreamKind::h2d) ++back;
      CHECK((op.stream == StreamKind::d2h ? op.phase == Phase::F : op.phase == Phase::B));
    }
    INFO("asked " << asked);
    CHECK(out == expected);
    CHECK(back == expected);
  }
  // Two chunks of 4 layers each (interleaved, 2 virtual stages on 2 stages): 3 per chunk at most.
  Scenario s = testing::small_scenario(1, 2, 1, 4);
  s.model.layers = 16;
  s.schedule.kind = "interleaved";
  s.schedule.virtual_stages = 2;
  s.training.activation_offload_layers = 5;
  const CompiledPlan plan = compile_plan(s);
  int out = 0;
  for (const ProgramOp& op : plan.programs[0].ops) out += op.kind == OpKind::host_copy && op.stream == StreamKind::d2h;
  CHECK(out == 4 * 2 * 3);  // micro-batches x chunks x offloaded layers
}

TEST_CASE("activation offload: a fast host link hides every copy, the iteration is unchanged", "[plan][offload]") {
  const Run base = run(one_gpu(0), GBps(1e6));
  const Run off = run(one_gpu(5), GBps(1e6));
  CHECK(off.exec.iteration == base.exec.iteration);
  CHECK(off.report.offload_exposed_s == 0);
  CHECK(off.report.offload_bytes_per_rank == Approx(2 * 5 * layer_bytes(one_gpu(5))).epsilon(1e-12));
  CHECK(base.report.offload_bytes_per_rank == 0);
}

TEST_CASE("activation offload: a slow copy of layer 0 delays layer 2's forward and layer 0's backward", "[plan][offload]") {
  // One offloaded layer whose copy takes c, longer than any layer: layer 2 waits for the offload (it ends
  // c after layer 0's forward, where layer 1's forward took f1), and layer 0's backward waits for the
  // reload (it starts with layer 1's backward, which takes b1). The iteration grows by (c − f1) + (c − b1),
  // and that is exactly the time compute waits for a copy.
  const Scenario s = one_gpu(1);
  const double bytes = layer_bytes(s);
  const Rate host = Rate(bytes / 0.5);  // c = 0.5 s
  const Run base = run(one_gpu(0), host);
  const Run off = run(s, host);
  // Forward compute ops: embedding, then (attention block, MLP block) per layer; backward: the logits'
  // backward, then (MLP, attention) per layer from the last, then the embedding's.
  const std::vector<Time> fwd = durations(base, Phase::F), bwd = durations(base, Phase::B);
  const Time f1 = fwd.at(3) + fwd.at(4);
  const Time b1 = bwd.at(bwd.size() - 5) + bwd.at(bwd.size() - 4);
  const Time c = Time::from_seconds(0.5);
  REQUIRE(c > f1);
  REQUIRE(c > b1);
  const Time grew = off.exec.iteration - base.exec.iteration;
  CHECK(grew.seconds() == Approx(((c - f1) + (c - b1)).seconds()).margin(1e-9));
  CHECK(off.report.offload_exposed_s == Approx(grew.seconds()).margin(1e-9));
  // The stage's time breakdown carries that wait as `offload`, and nothing else of the base run moved:
  // bubble, idle and exposed transfers are as without offload, compute as well.
  REQUIRE(off.report.stages.size() == 1);
  const StageTimeBreakdown& t = off.report.stages[0].time;
  const StageTimeBreakdown& b = base.report.stages[0].time;
  CHECK(t.offload_s == Approx(grew.seconds()).margin(1e-9));
  CHECK(b.offload_s == 0);
  CHECK(t.compute_s == Approx(b.compute_s).margin(1e-9));
  CHECK(t.bubble_s + t.idle_s == Approx(b.bubble_s + b.idle_s).margin(1e-9));
  CHECK(t.total_s() == Approx(off.exec.iteration.seconds()).margin(1e-9));
}

TEST_CASE("activation offload: memory keeps (k - off) / k of each held chunk plus two layers in transit",
          "[plan][offload][memory]") {
  for (int offload : {1, 3, 7}) {
    Scenario s = testing::small_scenario(1, 1, 1, 4);
    const Bytes per_layer = Bytes(layer_bytes(s));
    const StageHolding held = StageHolding::full(1);  // 1F1B on one stage: one micro-batch at a time
    const Bytes none = stage_memory(s, stage_memory_input(s, 0, held)).activations;
    s.training.activation_offload_layers = offload;
    const Bytes with = stage_memory(s, stage_memory_input(s, 0, held)).activations;
    INFO("offload " << offload);
    CHECK(none.value() == Approx(8 * per_layer.value()).epsilon(1e-12));
    CHECK(with.value() == Approx((8 - offload + std::min(offload, 2)) * per_layer.value()).epsilon(1e-12));
  }
}

TEST_CASE("host link: NVLink-C2C where the topology states it, else the PCIe path's share per GPU", "[topo][offload]") {
  const std::string dir = std::string(PLANSIM_SOURCE_DIR) + "/topologies/";
  // DGX H100: PCIe Gen5 x16 (63 GB/s) per device, 2 GPUs per switch on one x16 uplink.
  CHECK(load_topology(dir + "dgx-h100.yaml", 1).host_link_bandwidth().value() == Approx(63e9 / 2));
  // GB200 NVL72: node.host_link 450 GB/s (Grace <-> Blackwell NVLink-C2C, per direction).
  CHECK(load_topology(dir + "gb200-nvl72.yaml", 18).host_link_bandwidth().value() == Approx(450e9));
  NodeSpec n;
  n.pcie.bandwidth = GBps(31);
  n.pcie.uplink_bandwidth = GBps(31);
  n.pcie.gpus_per_switch = 4;
  CHECK(host_link_rate(n).value() == Approx(31e9 / 4));
  n.pcie.uplink_bandwidth = GBps(200);
  CHECK(host_link_rate(n).value() == Approx(31e9));  // the device link is the narrower
}
