#pragma once
// Fused causal scaled-dot-product attention through cuDNN's backend graph API (cudnn_graph.h), forward and
// backward, as the attention users run (FlashAttention-style: the s x s scores never reach HBM). Built
// only when CMake finds cuDNN (PLANSIM_HAVE_CUDNN); without it `run` times the unfused fallback
// (cuBLASLt QKᵀ, softmax, A·V in head chunks) and says so in the report.
//
// Layout: [batch·heads, 1, seq, head_dim] packed, bf16/fp16 in and out, fp32 statistics and compute.
// Forward graph: S = Q·Kᵀ, S·scale, causal mask (GEN_INDEX rows >= columns, BINARY_SELECT with the lowest
// float), softmax (MAX and ADD reductions, SUB, EXP, DIV) with Stats = max + log(sum) as an output, O = P·V
// with P in the I/O type. Backward: softmax_sum = rowsum(dO∘O) (fp32, in the workspace), P = exp(masked
// S·scale − Stats), dV = Pᵀ·dO, dS = (dO·Vᵀ − softmax_sum)∘P·scale, dK = dSᵀ·Q, dQ = dS·K accumulated
// in fp32 (in the workspace) and copied to dQ (transposes through RESHAPE). That is the shape cuDNN frontend
// lowers its SDPA nodes to (include/cudnn_frontend/node/scaled_dot_product_flash_attention.h), which
// cuDNN's fused engines match. The engine is cuDNN's first heuristic (mode A) choice that finalizes. The
// graph is first spelled as the frontend does (P and dSᵀ in the I/O type where a product reads them, the
// mask's comparison in BOOLEAN), then in other spellings, until one builds. First contact (H200, cuDNN
// 9.19): an fp32 P into A·V built no engine; a bf16 dQ written straight from dS·K built one that wrote
// out of bounds.
#include <cstddef>
#include <cstdint>
#include <memory>

#include <cuda_runtime_api.h>

#include "hw/gemm_dtype.hpp"

namespace plansim::hw {

struct SdpaShape {
  int64_t batch = 1;  // sequences x heads
  int64_t queries = 1, keys = 1, head_dim = 1;
  bool causal = true;
  bool backward = false;
};

// Device pointers of one call (backward reads q, k, v, o, d_o, stats and writes dq, dk, dv).
struct SdpaBuffers {
  void *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *stats = nullptr;
  void *d_o = nullptr, *dq = nullptr, *dk = nullptr, *dv = nullptr;
};

class CudnnSdpa {
 public:
  // Needs the current device; throws GpuError (library "cuDNN") when no engine supports the graph.
  CudnnSdpa(void* handle, const SdpaShape& shape, GemmDtype dtype);
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;
  [[nodiscard]] std::size_t workspace_bytes() const;
  // Which spelling of the graph cuDNN accepted (cudnn_sdpa.cpp, kLowerings), for the measurement record.
  [[nodiscard]] const char* lowering_name() const;
  void run(void* handle, const SdpaBuffers& b, void* workspace, cudaStream_t stream) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// cudnnCreate / cudnnDestroy (as void* so that callers need no cuDNN header).
void* cudnn_create_handle();
void cudnn_destroy_handle(void* handle);
// cudnnGetVersion, for the measurement record.
std::size_t cudnn_version();

}  // namespace plansim::hw
