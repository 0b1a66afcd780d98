#pragma once
// ExecBackend (exec_backend.hpp) on a GPU: CUDA streams and events, CUDA graphs, cuBLASLt GEMMs, cuDNN's
// fused attention (or the labelled unfused fallback without cuDNN), NCCL. One instance per rank.
#include <memory>

#include <nccl.h>

#include "hw/exec_backend.hpp"
#include "hw/run_control.hpp"

namespace plansim::hw {

struct CudaBackendOptions {
  int device = 0;
  ncclComm_t world = nullptr;
  GemmDtype dtype = GemmDtype::kBf16;
  bool fused_attention = true;  // cuDNN SDPA (false, or a build without cuDNN: the unfused fallback)
};

std::unique_ptr<ExecBackend> make_cuda_backend(const CudaBackendOptions& opt, RunControl& control);

// Whether this build has cuDNN's fused attention (PLANSIM_HAVE_CUDNN).
bool have_fused_attention();

}  // namespace plansim::hw
