#include "hw/selftest.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <iostream>

#include "hw/bench_copy.hpp"
#include "hw/bench_gemm.hpp"
#include "hw/bench_nccl.hpp"
#include "hw/check.hpp"
#ifdef PLANSIM_HAVE_CUDNN
#include "hw/attention_check.hpp"
#endif

namespace plansim::hw {

int run_selftest(const ProcessGroup& procs) {
  int devices = 0;
  PLANSIM_CUDA(cudaGetDeviceCount(&devices));
  int failures = 0;
  auto step = [&](const std::string& what, int rc) {
    std::cout << fmt::format("selftest: {}: {}\n", what, rc == 0 ? "ok" : "WRONG RESULTS");
    failures += rc != 0;
  };
  // Every collective on every local GPU, out-of-place and in-place, sizes that do and do not divide evenly.
  for (NcclOp op : all_nccl_ops()) {
    NcclBenchOptions o;
    o.op = op;
    o.min_bytes = 4;
    o.max_bytes = 1 << 20;
    o.factor = 37;
    o.iters = 2;
    o.warmup = 1;
    step(fmt::format("nccl {}", op_name(op)), run_nccl_bench(o, procs));
  }
  for (const char* dtype : {"bf16", "fp16", "fp32"}) {
    GemmBenchOptions o;
    o.shapes = parse_shapes("256x128x512,1000x304x80");
    o.dtype = parse_gemm_dtype(dtype);
    o.iters = 2;
    o.warmup = 1;
    step(fmt::format("gemm {}", dtype), run_gemm_bench(o));
  }
  CopyBenchOptions c;
  c.min_bytes = 4096;
  c.max_bytes = 4 << 20;
  c.iters = 2;
  c.warmup = 1;
  step("hbm", run_hbm_bench(c));
  if (devices >= 2) step("p2p", run_p2p_bench(c));
#ifdef PLANSIM_HAVE_CUDNN
  step("attention (cuDNN fused, forward and backward against a host reference)", run_attention_check());
#endif
  std::cout << fmt::format("selftest: {} failure(s)\n", failures);
  return failures == 0 ? 0 : 1;
}

}  // namespace plansim::hw
