#include "sim/coll/nvls_pipeline.hpp"

#include <algorithm>

namespace plansim {

Bytes nvls_chunk_bytes(const NcclModelParams& m, Bytes call, int heads) {
  double chunk = std::max(0.0, m.nvls_chunk_bytes);
  const double concurrent = static_cast<double>(std::max(0, m.nvls_channels)) * std::max(1, heads);
  const double s = call.value();
  // src/enqueue.cc calcCollChunking, NCCL_ALGO_NVLS (2.19-2.27): the three shrink steps in order.
  if (s < 64 * concurrent * chunk && chunk > 65536) chunk = 65536;
  if (s < 8 * concurrent * chunk && chunk > 32768) chunk = 32768;
  if (s < 2 * concurrent * chunk && chunk > 16384) chunk = 16384;
  return Bytes(chunk);
}

Bytes nvls_loop_bytes(const NcclModelParams& m, Bytes call, int heads) {
  return Bytes(static_cast<double>(std::max(0, m.nvls_channels)) * std::max(1, heads) *
               nvls_chunk_bytes(m, call, heads).value());
}

Bytes nvls_fill_bytes(const NcclModelParams& m, Bytes call, int heads) {
  const int fill_loops = std::max(0, m.nvls_pipeline_stages - 1);
  return Bytes(fill_loops * std::min(call.value(), nvls_loop_bytes(m, call, heads).value()));
}

}  // namespace plansim
