#include <catch2/catch.hpp>

#include "sim/compute/compute_model.hpp"
#include "tests/support/gpu_specs.hpp"
#include "sim/model/fp8_casts.hpp"
#include "sim/model/transformer.hpp"

using namespace plansim;

namespace {
// One linear layer: an M×K input, a K×N weight (N thin, as a TP 8 column-parallel shard of hidden 4096).
constexpr double M = 8192, K = 4096, N = 512;
constexpr double X = M * K, W = K * N, G = M * N;

ModelSpec llama8b(DType dt, Fp8Scaling mode) {
  ModelSpec m;
  m.layers = 32;
  m.hidden = 4096;
  m.heads = 32;
  m.kv_heads = 8;
  m.ffn_hidden = 14336;
  m.vocab = 128256;
  m.seq_len = 8192;
  m.gated_mlp = true;
  m.dtype = dt;
  m.fp8_scaling = mode;
  return m;
}

const OpCost& op(const std::vector<OpCost>& ops, const std::string& name) {
  for (const OpCost& o : ops)
    if (o.name == name) return o;
  FAIL("no op " << name);
  return ops.front();
}

using testing::h100;
}  // namespace

TEST_CASE("fp8 casts, tensorwise (torchao): X and G 6 B/element, W 8, all before the weight gradient", "[model][fp8]") {
  const GemmCasts c = fp8_gemm_casts(Fp8Scaling::tensorwise, M, K, N, CastSite{}, 16);
  // Forward: X amax 2 + cast 2 + 1 + 1; W amax 2 + cast 2 + 1; 3 kernels each (amax, its second stage, cast).
  CHECK(c.forward.bytes == Approx(6 * X + 5 * W));
  CHECK(c.forward.kernels == 6);
  // Data gradient: G as X; W cast again to the other layout (2 + 1). Micro-batches do not matter.
  CHECK(c.dgrad.bytes == Approx(6 * G + 3 * W));
  CHECK(c.dgrad.kernels == 4);
  CHECK(c.wgrad.bytes == 0);
  CHECK(c.wgrad.kernels == 0);
  // The cost grows against the GEMM's 2·M·K·N FLOPs as N thins: X's 6 B/element do not shrink with N.
  const GemmCasts wide = fp8_gemm_casts(Fp8Scaling::tensorwise, M, K, 8 * N, CastSite{}, 1);
  CHECK(wide.forward.bytes / (8 * N) < c.forward.bytes / N / 4);
}

TEST_CASE("fp8 casts, tensorwise: sequence-parallel and ZeRO-3 fp8 all-gathers cast the rank's shard", "[model][fp8]") {
  CastSite sp;
  sp.input_shard = 1.0 / 8;     // a column-parallel input, cast before its fp8 all-gather over TP 8
  sp.gradient_shard = 1.0 / 8;  // (and a row-parallel output gradient)
  sp.weight_shard = 1.0 / 4;    // weights gathered in fp8 over 4 ranks
  const GemmCasts c = fp8_gemm_casts(Fp8Scaling::tensorwise, M, K, N, sp, 1);
  CHECK(c.forward.bytes == Approx((2 + 3) * X / 8 + 3 * W / 4));  // amax + one-layout cast of X's shard; W's shard
  CHECK(c.forward.kernels == 3 + 1);
  CHECK(c.dgrad.bytes == Approx((2 + 3) * G / 8 + 3 * W / 4 + 2 * W));  // G's shard; W re-gathered and transposed
  CHECK(c.dgrad.kernels == 3 + 2);
  CHECK(c.wgrad.bytes == Approx(2 * X + 2 * G));  // the gathered X and G transposed in fp8
  CHECK(c.wgrad.kernels == 2);
}

TEST_CASE("fp8 casts, rowwise (torchao): X and G 8 B/element, W 10, split over the three GEMMs", "[model][fp8]") {
  const GemmCasts c = fp8_gemm_casts(Fp8Scaling::rowwise, M, K, N, CastSite{}, 16);
  CHECK(c.forward.bytes == Approx(5 * X + 3 * W));
  CHECK(c.forward.kernels == 2);
  CHECK(c.dgrad.bytes == Approx(5 * G + 7 * W));
  CHECK(c.dgrad.kernels == 3);
  CHECK(c.wgrad.bytes == Approx(3 * X + 3 * G));
  CHECK(c.wgrad.kernels == 2);
  CHECK(c.forward.bytes + c.dgrad.bytes + c.wgrad.bytes == Approx(8 * X + 10 * W + 8 * G));
}

TEST_CASE("fp8 casts, delayed (Transformer Engine): fused producers cast for free, weights once per iteration",
          "[model][fp8]") {
  const CastSite fused{true, true, 1, 1};
  const GemmCasts f = fp8_gemm_casts(Fp8Scaling::delayed, M, K, N, fused, 4);
  CHECK(f.forward.bytes == Approx(4 * W / 4));  // the weight's cast-transpose, a quarter per micro-batch
  CHECK(f.forward.kernels == Approx(0.25));
  CHECK(f.dgrad.bytes == 0);
  CHECK(f.wgrad.bytes == 0);
  const GemmCasts u = fp8_gemm_casts(Fp8Scaling::delayed, M, K, N, CastSite{}, 1);
  CHECK(u.forward.bytes == Approx(4 * X + 4 * W));  // cast-transpose: read 2, write 1 + 1
  CHECK(u.forward.kernels == 2);
  CHECK(u.dgrad.bytes == Approx(4 * G));
  CHECK(u.dgrad.kernels == 1);
  CHECK(u.wgrad.bytes == 0);
}

TEST_CASE("fp8 casts: a layer's GEMMs carry them, backward_of hands them to the data and weight gradients",
          "[model][fp8]") {
  Shard sh;
  sh.tp = 8;
  sh.sequence_parallel = true;
  const ModelSpec m = llama8b(DType::fp8, Fp8Scaling::tensorwise);
  const LayerForward f = layer_forward(m, 0, 2, sh);
  const OpCost& qkv = op(f.attention, "qkv");
  const double t = 2 * 8192, h = 4096, n = (4096 + 2 * 1024) / 8.0;
  CastSite site;
  site.input_fused = true;
  site.input_shard = 1.0 / 8;
  const GemmCasts c = fp8_gemm_casts(Fp8Scaling::tensorwise, t, h, n, site, 1);
  CHECK(qkv.casts.bytes == Approx(c.forward.bytes));
  CHECK(qkv.dgrad_casts.bytes == Approx(c.dgrad.bytes));
  CHECK(qkv.wgrad_casts.bytes == Approx(c.wgrad.bytes));
  const std::vector<OpCost> b = backward_of({qkv}, BackwardPart::both);
  REQUIRE(b.size() == 2);
  CHECK(b[0].casts.bytes == Approx(c.dgrad.bytes));
  CHECK(b[0].casts.kernels == c.dgrad.kernels);
  CHECK(b[1].casts.bytes == Approx(c.wgrad.bytes));
  CHECK(b[1].dgrad_casts.bytes == 0);
  // Attention, norms and the logits carry none.
  CHECK(op(f.attention, "attention_core").casts.bytes == 0);
  CHECK(op(f.attention, "input_norm").casts.bytes == 0);
  for (const OpCost& o : logits_forward(m, 2, sh)) CHECK(o.casts.bytes == 0);
}

TEST_CASE("fp8 casts: bf16 models carry none, whatever the scaling", "[model][fp8]") {
  for (Fp8Scaling mode : {Fp8Scaling::delayed, Fp8Scaling::tensorwise, Fp8Scaling::rowwise}) {
    const LayerForward f = layer_forward(llama8b(DType::bf16, mode), 0, 2, Shard{});
    const std::vector<OpCost> b = backward_of(f.mlp, BackwardPart::both);
    for (const auto* ops : {&f.attention, &f.mlp, &b})
      for (const OpCost& o : *ops) {
        CHECK(o.casts.bytes == 0);
        CHECK(o.casts.kernels == 0);
        CHECK(o.dgrad_casts.bytes == 0);
        CHECK(o.wgrad_casts.bytes == 0);
      }
  }
}

TEST_CASE("fp8 casts are charged as HBM time: bytes / (hbm_efficiency · bandwidth) + a launch per kernel",
          "[compute][fp8]") {
  ComputeParams p = ComputeParams::defaults(h100(), DType::fp8);
  OpCost g{"mlp_down", OpClass::gemm, 2 * M * K * N, (X + W + G), GemmDims{M, N, K, 1}};
  OpCost cast = g;
  cast.casts = {1e9, 3};
  const double extra = (ComputeModel(p).op_time(cast) - ComputeModel(p).op_time(g)).seconds();
  CHECK(extra == Approx(1e9 / (0.85 * 3350e9) + 3 * 2e-6).epsilon(1e-6));
  // Twice the HBM bandwidth halves the bytes' part; the GEMM's own time is unchanged by casts.
  ComputeParams fast = p;
  fast.hbm = p.hbm * 2;
  const double extra_fast = (ComputeModel(fast).op_time(cast) - ComputeModel(fast).op_time(g)).seconds();
  CHECK(extra_fast == Approx(1e9 / (0.85 * 6700e9) + 3 * 2e-6).epsilon(1e-6));
}
