#include "hw/attention_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <tuple>
#include <vector>

#include "hw/check.hpp"
#include "hw/cuda_raii.hpp"
#include "hw/cudnn_sdpa.hpp"
#include "hw/kernels.hpp"

namespace plansim::hw {
namespace {

constexpr std::size_t kBatch = 3, kSeq = 192, kDim = 64;  // batch·heads, queries = keys, head dim
constexpr std::size_t kElems = kBatch * kSeq * kDim;

std::vector<float> to_host(const DeviceBuffer& b, std::size_t n) {
  std::vector<std::uint16_t> bits(n);
  PLANSIM_CUDA(cudaMemcpy(bits.data(), b.get(), n * 2, cudaMemcpyDeviceToHost));
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t w = static_cast<std::uint32_t>(bits[i]) << 16;  // bf16 is fp32's top half
    std::memcpy(&out[i], &w, sizeof w);
  }
  return out;
}

struct Reference {
  std::vector<float> o, dq, dk, dv;
};

// Causal softmax attention and its gradients, per batch row, in fp32 (scores scaled by 1/sqrt(d)).
Reference reference(const std::vector<float>& q, const std::vector<float>& k, const std::vector<float>& v,
                    const std::vector<float>& d_o) {
  Reference r{std::vector<float>(kElems), std::vector<float>(kElems), std::vector<float>(kElems),
              std::vector<float>(kElems)};
  const float scale = 1.0f / std::sqrt(static_cast<float>(kDim));
  std::vector<float> p(kSeq * kSeq), ds(kSeq * kSeq);
  for (std::size_t b = 0; b < kBatch; ++b) {
    const auto at = [&](const std::vector<float>& x, std::size_t row, std::size_t c) { return x[(b * kSeq + row) * kDim + c]; };
    for (std::size_t i = 0; i < kSeq; ++i) {
      float m = -INFINITY;
      for (std::size_t j = 0; j <= i; ++j) {
        float s = 0;
        for (std::size_t c = 0; c < kDim; ++c) s += at(q, i, c) * at(k, j, c);
        p[i * kSeq + j] = s * scale;
        m = std::max(m, s * scale);
      }
      float sum = 0;
      for (std::size_t j = 0; j <= i; ++j) {
        p[i * kSeq + j] = std::exp(p[i * kSeq + j] - m);
        sum += p[i * kSeq + j];
      }
      for (std::size_t j = 0; j <= i; ++j) p[i * kSeq + j] /= sum;
      for (std::size_t c = 0; c < kDim; ++c) {
        float o = 0;
        for (std::size_t j = 0; j <= i; ++j) o += p[i * kSeq + j] * at(v, j, c);
        r.o[(b * kSeq + i) * kDim + c] = o;
      }
    }
    for (std::size_t i = 0; i < kSeq; ++i) {
      float dot = 0;  // rowsum(dO∘O)
      for (std::size_t c = 0; c < kDim; ++c) dot += at(d_o, i, c) * r.o[(b * kSeq + i) * kDim + c];
      for (std::size_t j = 0; j <= i; ++j) {
        float dp = 0;
        for (std::size_t c = 0; c < kDim; ++c) dp += at(d_o, i, c) * at(v, j, c);
        ds[i * kSeq + j] = p[i * kSeq + j] * (dp - dot) * scale;
      }
    }
    for (std::size_t x = 0; x < kSeq; ++x)
      for (std::size_t c = 0; c < kDim; ++c) {
        float dq = 0, dk = 0, dv = 0;
        for (std::size_t j = 0; j <= x; ++j) dq += ds[x * kSeq + j] * at(k, j, c);  // x as a query
        for (std::size_t i = x; i < kSeq; ++i) {                                     // x as a key
          dk += ds[i * kSeq + x] * at(q, i, c);
          dv += p[i * kSeq + x] * at(d_o, i, c);
        }
        r.dq[(b * kSeq + x) * kDim + c] = dq;
        r.dk[(b * kSeq + x) * kDim + c] = dk;
        r.dv[(b * kSeq + x) * kDim + c] = dv;
      }
  }
  return r;
}

// max |got − want| / max |want|.
double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, static_cast<double>(std::abs(got[i] - want[i])));
    scale = std::max(scale, static_cast<double>(std::abs(want[i])));
  }
  return scale > 0 ? diff / scale : diff;
}

}  // namespace

int run_attention_check() {
  void* handle = cudnn_create_handle();
  struct HandleGuard {
    void* h;
    ~HandleGuard() { cudnn_destroy_handle(h); }
  } guard{handle};
  Stream stream;
  DeviceBuffer q(kElems * 2), k(kElems * 2), v(kElems * 2), o(kElems * 2), d_o(kElems * 2), dq(kElems * 2),
      dk(kElems * 2), dv(kElems * 2), stats(kBatch * kSeq * 4);
  fill_random_operand(q.get(), GemmDtype::kBf16, kElems, 11, stream.get());
  fill_random_operand(k.get(), GemmDtype::kBf16, kElems, 12, stream.get());
  fill_random_operand(v.get(), GemmDtype::kBf16, kElems, 13, stream.get());
  fill_random_operand(d_o.get(), GemmDtype::kBf16, kElems, 14, stream.get());
  const auto b64 = static_cast<int64_t>(kBatch), s64 = static_cast<int64_t>(kSeq), d64 = static_cast<int64_t>(kDim);
  const CudnnSdpa fwd(handle, SdpaShape{b64, s64, s64, d64, true, false}, GemmDtype::kBf16);
  const CudnnSdpa bwd(handle, SdpaShape{b64, s64, s64, d64, true, true}, GemmDtype::kBf16);
  DeviceBuffer workspace(std::max<std::size_t>({fwd.workspace_bytes(), bwd.workspace_bytes(), 256}));
  const SdpaBuffers b{q.get(), k.get(), v.get(), o.get(), stats.get(), d_o.get(), dq.get(), dk.get(), dv.get()};
  fwd.run(handle, b, workspace.get(), stream.get());
  bwd.run(handle, b, workspace.get(), stream.get());
  PLANSIM_CUDA(cudaStreamSynchronize(stream.get()));
  const Reference want = reference(to_host(q, kElems), to_host(k, kElems), to_host(v, kElems), to_host(d_o, kElems));
  // bf16 outputs of sums over up to 192 terms: ~2^-8 relative rounding each, so 3 % of the largest value.
  constexpr double kTolerance = 0.03;
  int failures = 0;
  std::string line;
  for (const auto& [name, got, ref] : {std::tuple{"O", &o, &want.o}, std::tuple{"dQ", &dq, &want.dq},
                                       std::tuple{"dK", &dk, &want.dk}, std::tuple{"dV", &dv, &want.dv}}) {
    const double e = relative_error(to_host(*got, kElems), *ref);
    failures += !(e <= kTolerance);
    line += fmt::format("{}{} {:.4f}", line.empty() ? "" : ", ", name, e);
  }
  std::cout << fmt::format("attention ({} x {} x {} x {}, causal, {} / {}): max |error| / max |reference|: {} "
                           "(tolerance {})\n",
                           kBatch, kSeq, kSeq, kDim, fwd.lowering_name(), bwd.lowering_name(), line, kTolerance);
  return failures == 0 ? 0 : 1;
}

}  // namespace plansim::hw
