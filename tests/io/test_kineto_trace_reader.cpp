// The Kineto (PyTorch profiler) trace reader: kernel names to op classes, iterations from ProfilerStep#
// ranges (kernels by their launch's correlation), per-step class times, and the comparison with a
// simulated report aggregated the same way. Fixtures: tests/data/kineto/ (documented trace fields only).
#include <catch2/catch.hpp>

#include "sim/calib/validate.hpp"
#include "sim/io/kineto_trace_reader.hpp"
#include "sim/io/report_timings_reader.hpp"

using namespace plansim;

namespace {
std::string data(const std::string& f) { return std::string(PLANSIM_SOURCE_DIR) + "/tests/data/kineto/" + f; }
}  // namespace

TEST_CASE("kineto: kernel names map to op classes, NCCL kernels to their op", "[io][kineto]") {
  CHECK(io::kernel_class("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64") == "gemm");
  CHECK(io::kernel_class("nvjet_tst_192x192_64x4_2x1_v_bz_coopA_TNT") == "gemm");
  CHECK(io::kernel_class("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_32x6_tn_align8>") ==
        "gemm");
  CHECK(io::kernel_class("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4> >") == "attention");
  CHECK(io::kernel_class("cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3") == "attention");
  CHECK(io::kernel_class("fmha_cutlassB_bf16_aligned_64x64_k128_sm80") == "attention");
  CHECK(io::kernel_class("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >") ==
        "elementwise");
  CHECK(io::kernel_class("ncclDevKernel_AllReduce_Sum_bf16_RING_LL") == "collective");
  CHECK(io::kernel_class("ncclDevKernel_SendRecv") == "p2p");
  CHECK(io::nccl_op("ncclKernel_AllGather_RING_LL_Sum_int8_t") == "all_gather");
  CHECK(io::nccl_op("ncclDevKernel_ReduceScatter_Sum_f32_RING_SIMPLE") == "reduce_scatter");
  CHECK(io::nccl_op("ncclDevKernel_Broadcast_RING_LL") == "broadcast");
  CHECK(io::nccl_op("gemm").empty());
}

TEST_CASE("kineto: iterations from ProfilerStep ranges, kernels by their launch", "[io][kineto]") {
  const io::KinetoSummary k = io::read_kineto_trace(data("rank0.trace.json"));
  CHECK(k.rank == 0);
  CHECK(k.steps == 2);
  CHECK(k.iteration_s == Approx(10.5e-3));  // median of 10 and 11 ms
  // The warm-up GEMM before the first step and the memcpy are left out; the last elementwise kernel runs
  // after the last step ends but was launched inside it (correlation 9): it counts.
  CHECK(k.kernels == 10);
  CHECK(k.class_s.at("gemm") == Approx(4e-3));
  CHECK(k.class_s.at("attention") == Approx(1e-3));
  CHECK(k.class_s.at("elementwise") == Approx(0.5e-3));
  CHECK(k.class_s.at("collective") == Approx(2e-3));
  CHECK(k.class_s.at("p2p") == Approx(0.5e-3));
  CHECK(k.nccl_s.at("all_reduce") == Approx(2e-3));
  CHECK(k.nccl_s.at("send_recv") == Approx(0.5e-3));
}

TEST_CASE("kineto: compared per class and NCCL op with the simulated run of the same rank", "[io][kineto]") {
  const io::KinetoSummary k = io::read_kineto_trace(data("rank0.trace.json"));
  const calib::ReportTimings sim = io::aggregate_like_kineto(io::read_report_timings(data("sim_rank0.json")), k.rank);
  const calib::Validation v = calib::validate(sim, io::kineto_timings(k), 0.10);
  CHECK(v.unmatched_sim == 0);
  CHECK(v.unmatched_measured == 0);
  CHECK(v.end_to_end_rel == Approx(0.05));  // 11.025 ms simulated vs 10.5 measured
  CHECK(v.classes.at("gemm").median_abs_rel == Approx(0.075));  // 4.3 ms simulated vs 4.0 measured
  CHECK(v.classes.at("attention").median_abs_rel == Approx(0).margin(1e-12));
  CHECK(v.classes.at("collective").ops == 2);  // "collective total" and "nccl all_reduce"
  CHECK(v.classes.at("p2p").median_abs_rel == Approx(0).margin(1e-12));
  CHECK(v.within_tolerance);
  CHECK_THROWS_AS(io::aggregate_like_kineto(io::read_report_timings(data("sim_rank0.json")), 5), ConfigError);
}

TEST_CASE("kineto: malformed traces are file:line:col errors", "[io][kineto]") {
  CHECK(io::is_chrome_trace(data("rank0.trace.json")));
  CHECK_FALSE(io::is_chrome_trace(data("sim_rank0.json")));
  CHECK_THROWS_WITH(io::read_kineto_trace(data("bad_event.trace.json")),
                    Catch::Contains("bad_event.trace.json:12:") && Catch::Contains("numeric 'ts' and 'dur'"));
  CHECK_THROWS_WITH(io::read_kineto_trace(data("no_steps.trace.json")), Catch::Contains("ProfilerStep"));
  CHECK_THROWS_WITH(io::read_kineto_trace_text("{\"traceEvents\": [", "cut.json"), Catch::Contains("cut.json:1:"));
  CHECK_THROWS_WITH(io::read_kineto_trace_text("{\"events\": []}", "x.json"), Catch::Contains("traceEvents"));
}
