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

Bytes nvls_tree_chunk_bytes(const NcclModelParams& m, Bytes call, int heads, int nodes) {
  double chunk = std::max(0.0, m.nvls_chunk_bytes);
  if (nodes >= 4) chunk = std::min(chunk, 65536.0);  // NCCL_NVLSTREE_MAX_CHUNKSIZE default (enqueue.cc)
  const double concurrent = static_cast<double>(std::max(0, m.nvls_channels)) * std::max(1, heads);
  const double s = call.value();
  // src/enqueue.cc calcCollChunking, NCCL_ALGO_NVLS_TREE (2.22-2.23): the four shrink steps in order.
  if (s < 32 * concurrent * chunk && chunk > 262144) chunk = 262144;
  if (s < 16 * concurrent * chunk && chunk > 131072) chunk = 131072;
  if (s < 4 * concurrent * chunk && chunk > 65536) chunk = 65536;
  if (s < 1 * concurrent * chunk && chunk > 32768) chunk = 32768;
  return Bytes(chunk);
}

Bytes nvls_tree_fill_bytes(const NcclModelParams& m, Bytes call, int heads, int nodes, int levels) {
  const double loop = static_cast<double>(std::max(0, m.nvls_channels)) * std::max(1, heads) *
                      nvls_tree_chunk_bytes(m, call, heads, nodes).value();
  const int fill_loops = std::max(0, m.nvls_pipeline_stages + 2 * std::max(0, levels) - 1);
  return Bytes(fill_loops * std::min(call.value(), loop));
}

}  // namespace plansim
