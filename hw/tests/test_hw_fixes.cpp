// GPU-free tests of the review fixes in hw/ (issue 13): device choice under per-task GPU binding, refusing
// a launcher's many tasks without MPI, size limits, spec-sheet peaks, PP lanes for NCCL's in-order
// matching, chunked unfused attention, fp8 tiling, communicators only for groups that run something,
// collective starts at the last member's arrival, iteration spread, and the measurement record's pieces.
#include <catch2/catch.hpp>

#include <map>

#include "hw/bench_spec.hpp"
#include "hw/env_record.hpp"
#include "hw/launch_env.hpp"
#include "hw/launch_plan.hpp"
#include "hw/measured.hpp"
#include "hw/run_command.hpp"
#include "sim/plan/plan_compiler.hpp"

using namespace plansim;
using namespace plansim::hw;

namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](const char* name) -> const char* {
    const auto it = shared->find(name);
    return it == shared->end() ? nullptr : it->second.c_str();
  };
}

std::string tiny() { return std::string(PLANSIM_SOURCE_DIR) + "/hw/tests/data/tiny-pp2.yaml"; }

}  // namespace

TEST_CASE("devices: per-task binding, blocks per local process, explicit lists", "[hw][env]") {
  // srun --gpus-per-task=1: every task sees one GPU, whatever its local index.
  CHECK(choose_devices(1, 1, 3, {}) == std::vector<int>{0});
  // One process per node driving 8 GPUs.
  CHECK(choose_devices(8, 8, 0, {}) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
  // Four processes of two GPUs on an 8-GPU host: the local index picks the block.
  CHECK(choose_devices(8, 2, 3, {}) == std::vector<int>{6, 7});
  CHECK(choose_devices(8, 1, 5, {2, 3}) == std::vector<int>{2, 3});
  CHECK_THROWS_WITH(choose_devices(2, 1, 4, {}), Catch::Contains("--devices"));
  CHECK_THROWS_AS(choose_devices(2, 1, 0, {5}), std::invalid_argument);
}

TEST_CASE("a launcher's many tasks are refused without MPI or when MPI does not see them", "[hw][env]") {
  for (const char* var : {"SLURM_NTASKS", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE"}) {
    INFO(var);
    const EnvLookup env = env_of({{var, "4"}});
    CHECK(launcher_world_size(env) == 4);
    CHECK_THAT(launcher_mismatch(env, 1, false), Catch::Contains("without MPI"));
    CHECK_THAT(launcher_mismatch(env, 1, true), Catch::Contains("MPI sees 1"));
    CHECK(launcher_mismatch(env, 4, true).empty());
  }
  CHECK(launcher_mismatch(env_of({}), 1, false).empty());
  CHECK(launcher_mismatch(env_of({{"SLURM_NTASKS", "1"}}), 1, false).empty());
  CHECK(launcher_rank(env_of({{"SLURM_PROCID", "3"}})) == 3);
  CHECK(launcher_rank(env_of({})) == 0);
  char a[] = "NCCL_ALGO=Ring", b[] = "PATH=/bin", c[] = "CUDA_DEVICE_MAX_CONNECTIONS=32", d[] = "NCCL_IB_HCA=mlx5";
  char* list[] = {a, b, c, d, nullptr};
  const nlohmann::json vars = nccl_cuda_variables(list);
  CHECK(vars.size() == 3);
  CHECK(vars["CUDA_DEVICE_MAX_CONNECTIONS"] == "32");
  CHECK_FALSE(vars.contains("PATH"));
}

TEST_CASE("sizes above 1024G are refused instead of overflowing; sweeps stop at the maximum", "[hw]") {
  CHECK(parse_size("1024G") == std::size_t{1} << 40);
  CHECK_THROWS_AS(parse_size("1025G"), std::invalid_argument);
  CHECK_THROWS_AS(parse_size("99999999999999999G"), std::invalid_argument);
  CHECK_THROWS_AS(parse_size("18446744073709551615"), std::invalid_argument);
  // A factor that would step past max (or overflow) ends the sweep.
  const auto sweep = size_sweep(std::size_t{1} << 39, std::size_t{1} << 40, 1000);
  CHECK(sweep == std::vector<std::size_t>{std::size_t{1} << 39});
}

TEST_CASE("peak FLOP/s use the spec sheet's clock: H100 SXM bf16 989 TFLOP/s, not the 1980 MHz boost", "[hw]") {
  CHECK(*spec_sm_clock_hz(90, 132) == 1830e6);
  CHECK(flops_per_clock_per_sm(90, "bf16") * 132 * *spec_sm_clock_hz(90, 132) == Approx(989.4e12).epsilon(1e-3));
  CHECK(flops_per_clock_per_sm(80, "bf16") * 108 * *spec_sm_clock_hz(80, 108) == Approx(312e12).epsilon(1e-2));
  CHECK(flops_per_clock_per_sm(90, "tf32") * 132 * 1830e6 == Approx(494.7e12).epsilon(1e-3));
  CHECK_FALSE(spec_sm_clock_hz(90, 100));
  CHECK(flops_per_clock_per_sm(75, "bf16") == 0);
}

TEST_CASE("PP lanes: the fewest lanes within which both sides issue the same order", "[hw][run]") {
  CHECK(channel_lanes({1, 2, 3}, {1, 2, 3}) == std::vector<uint32_t>{0, 0, 0});
  // The receiver takes 2 before 1: two lanes, each in agreement.
  CHECK(channel_lanes({1, 2, 3}, {2, 1, 3}) == std::vector<uint32_t>{0, 1, 0});
  // Fully reversed: one lane per message (the longest decreasing run).
  CHECK(channel_lanes({1, 2, 3}, {3, 2, 1}) == std::vector<uint32_t>{0, 1, 2});
  const std::vector<uint32_t> send{5, 6, 7, 8, 9}, recv{6, 5, 8, 7, 9};
  const auto lanes = channel_lanes(send, recv);
  // Within a lane the receive order follows the send order.
  std::map<uint32_t, std::vector<uint32_t>> per_lane;
  for (size_t i = 0; i < recv.size(); ++i) per_lane[lanes[i]].push_back(recv[i]);
  for (const auto& [lane, tags] : per_lane) CHECK(std::is_sorted(tags.begin(), tags.end()));
  CHECK(per_lane.size() == 2);
}

TEST_CASE("unfused attention runs its heads in chunks whose scores fit", "[hw][run]") {
  // 8K x 8K scores per head, 64 heads: 64M elements per head; at most 2 heads per chunk of 128M.
  const GemmDims d{8192, 8192, 128, 64};
  const auto chunks = attention_chunks(d, 128.0 * 1024 * 1024);
  CHECK(chunks.size() == 32);
  CHECK(chunks.front() == 2);
  // Scores bigger than the budget still run one head at a time.
  CHECK(attention_chunks(GemmDims{65536, 65536, 128, 3}, 1024) == std::vector<int64_t>{1, 1, 1});
  CHECK(attention_chunks(GemmDims{128, 128, 64, 5}, 1e9) == std::vector<int64_t>{5});
}

TEST_CASE("attention launches one fused causal SDPA per kernel: forward 2 products, backward 4", "[hw][run]") {
  RunArgs args;
  args.file = tiny();
  const PreparedRun run = prepare_run(args);
  int forward = 0, backward = 0;
  for (const RankLaunches& rl : run.launches.ranks)
    for (const Launch& l : rl.launches)
      for (const KernelLaunch& k : l.kernels)
        if (k.kind == KernelKind::attention) {
          CHECK(k.causal);
          // queries x keys x head dim, batch = sequences x heads (tiny: 1 x 16 heads of 64)
          CHECK(k.dims.m == 1024);
          CHECK(k.dims.n == 1024);
          CHECK(k.dims.k == 64);
          CHECK(k.dims.batch == 16);
          (k.backward ? backward : forward)++;
          CHECK(k.flops() == Approx((k.backward ? 4 : 2) * 2.0 * 1024 * 1024 * 64 * 16));
        }
  CHECK(forward > 0);
  CHECK(backward == forward);  // no recompute
  CHECK(run.launches.attention_qkv_elems == 1024.0 * 64 * 16);
}

TEST_CASE("fp8 plans whose GEMMs cuBLASLt cannot tile are refused before any device is touched", "[hw][run]") {
  CHECK(gemm_tiling_problem(4096, 4096, 4096, GemmDtype::kFp8).empty());
  CHECK_THAT(gemm_tiling_problem(4096, 4100, 4096, GemmDtype::kFp8), Catch::Contains("multiples of 16"));
  CHECK(gemm_tiling_problem(4096, 4100, 4096, GemmDtype::kBf16).empty());
  RunArgs args;
  args.file = tiny();
  args.sets = {"model.dtype=fp8", "model.vocab=32001"};  // the logits GEMM's n = 32001
  CHECK_THROWS_WITH(prepare_run(args), Catch::Contains("multiples of 16"));
  args.sets = {"model.dtype=fp8"};
  CHECK_NOTHROW(prepare_run(args));
  CHECK(min_compute_capability(GemmDtype::kFp8) == 89);
  CHECK(min_compute_capability(GemmDtype::kTf32) == 80);
}

TEST_CASE("communicators: none for groups of one rank or unused; created ones touch only what runs", "[hw][run]") {
  RunArgs args;
  args.file = tiny();  // PP 2, DP 1, TP 1: every plan group has one rank
  const PreparedRun run = prepare_run(args);
  for (size_t g = 0; g < run.plan.groups.size(); ++g) {
    INFO(run.launches.communicators[g].label);
    if (run.plan.groups[g].ranks.size() == 1) CHECK_FALSE(run.launches.communicators[g].created);
  }
  size_t lanes = 0, groups = 0;
  for (size_t c = 0; c < run.launches.communicators.size(); ++c) {
    const Communicator& comm = run.launches.communicators[c];
    if (!comm.created) continue;
    CHECK(comm.ranks.size() == 2);
    REQUIRE(comm.touches.size() == 1);  // one kind of operation runs on each, at its largest size
    if (c >= run.plan.groups.size()) {
      ++lanes;
      CHECK(comm.touches[0].kind == OpKind::send);  // the lane's message, nothing to every peer
    } else {
      ++groups;  // the two stages' shared group (tied embedding gradients): its all-reduce only
      CHECK(comm.touches[0].kind == OpKind::collective);
      CHECK(comm.touches[0].comm == CommOp::all_reduce);
    }
  }
  CHECK(lanes == 2);  // 0->1 (activations) and 1->0 (gradients)
  CHECK(groups == 1);
}

TEST_CASE("collective and p2p starts move to the last member's arrival; ends stay", "[hw][run]") {
  RunArgs args;
  args.file = tiny();
  args.sets = {"nodes=4", "parallel.pp=2", "parallel.dp=2", "training.global_batch=8"};
  const PreparedRun run = prepare_run(args);
  std::vector<std::vector<OpSpan>> spans;
  for (const Program& p : run.plan.programs) {
    spans.emplace_back();
    // Rank r arrives at every op at r ms and ends at 10 ms.
    for (size_t i = 0; i < p.ops.size(); ++i) spans.back().push_back({p.rank * 1e-3, 10e-3});
  }
  align_communication_starts(run.plan, spans);
  for (const Program& p : run.plan.programs)
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const ProgramOp& op = p.ops[i];
      const OpSpan& s = spans[p.rank][i];
      CHECK(s.end_s == 10e-3);
      if (op.kind == OpKind::compute) CHECK(s.start_s == p.rank * 1e-3);
      if (op.kind == OpKind::collective) {
        uint32_t last = 0;
        for (uint32_t r : run.plan.groups[op.group].ranks) last = std::max(last, r);
        CHECK(s.start_s == Approx(last * 1e-3));
      }
      if (op.kind == OpKind::send || op.kind == OpKind::recv) CHECK(s.start_s == Approx(std::max(p.rank, op.peer) * 1e-3));
    }
  const IterationStats st = iteration_stats({{{{0, 1}}, {{0, 2}}}, {{{0, 4}}, {{0, 3}}}, {{{0, 3}}, {{0, 1}}}});
  CHECK(st.seconds == std::vector<double>{2, 4, 3});
  CHECK(st.min == 2);
  CHECK(st.median == 3);
  CHECK(st.max == 4);
}

TEST_CASE("measurement record: NVML samples summarised, throttle reasons named", "[hw][env]") {
  CHECK(throttle_reason_names(0x1 | 0x4 | 0x40) ==
        std::vector<std::string>{"gpu_idle", "sw_power_cap", "hw_thermal_slowdown"});
  CHECK(summarize_samples({})["samples"] == 0);
  const nlohmann::json s = summarize_samples(
      {{0.0, 1980, 2619, 690, 60, 0x0}, {0.1, 1755, 2619, 700, 70, 0x4}, {0.2, 1830, 2619, 650, 65, 0x1}});
  CHECK(s["samples"] == 3);
  CHECK(s["sm_clock_mhz"]["min"] == 1755);
  CHECK(s["sm_clock_mhz"]["median"] == 1830);
  CHECK(s["sm_clock_mhz"]["max"] == 1980);
  CHECK(s["power_w"]["max"] == 700);
  CHECK(s["throttle_reasons"] == nlohmann::json::array({"sw_power_cap"}));  // idle is not throttling
  CHECK(s["throttled_fraction"].get<double>() == Approx(1.0 / 3));
}

TEST_CASE("measurement record: detected topology against the scenario's, nearest NIC per GPU", "[hw][env]") {
  const LoadedScenario s = load_scenario(std::string(PLANSIM_SOURCE_DIR) + "/scenarios/seed-tp8-nvlink.yaml");
  const TopologyFacts f = topology_facts(s.topology);
  CHECK(f.gpus_per_host == 8);
  CHECK(f.nvlink);
  DetectedTopology d;
  d.gpus = 8;
  d.nvlinks.assign(8, 18);
  d.nics = {{"mlx5_0", 400, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"},
            {"mlx5_1", 400, "/sys/devices/pci0000:80/0000:80:01.0/0000:81:00.0"}};
  CHECK(nearest_nic("/sys/devices/pci0000:80/0000:80:01.0/0000:82:00.0", d.nics) == "mlx5_1");
  CHECK(nearest_nic("/x", {}).empty());
  nlohmann::json c = topology_check(d, f);
  CHECK(c["scenario"]["gpus_per_host"] == 8);
  d.nvlinks.assign(8, 0);  // a PCIe box running an NVLink scenario
  c = topology_check(d, f);
  REQUIRE(!c["mismatches"].empty());
  CHECK_THAT(c["mismatches"][0].get<std::string>(), Catch::Contains("NVLink"));
  d.gpus = 2;
  d.nvlinks.assign(2, 4);
  CHECK(topology_check(d, f)["notes"].size() == 1);  // a scaled run on fewer GPUs is noted, not a mismatch
  CHECK(parse_link_rate_gbps("400 Gb/sec (4X NDR)") == 400);
  CHECK(parse_link_rate_gbps("garbage") == 0);
}
