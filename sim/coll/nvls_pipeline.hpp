#pragma once
// NCCL's NVLS all-reduce pipeline on one NVSwitch domain, as it sets the pipeline fill an NVLS call pays
// (nccl_model.cpp wire_bytes). NCCL runs NVLS on nvls_channels channels, all of them at every size
// (src/enqueue.cc, 2.19-2.27: "NVLS should not need more than 16 channels to get peak BW", nc =
// comm->nvlsChannels, no per-size channel drop as for Ring/Tree); each channel splits its share into
// nHeads chunks per loop (one per head rank: nHeads = the NVLS graph's channels = the node's GPUs,
// src/graph/connect.cc connectNvls), so one loop moves nvls_channels x nHeads x chunk bytes. The chunk
// is calcCollChunking's (src/enqueue.cc, 2.19-2.27): at most comm->nvlsChunkSize (NCCL_NVLS_CHUNKSIZE,
// 128 KiB, src/transport/nvls.cc), then 64 KiB below 64 x, 32 KiB below 8 x and 16 KiB below 2 x
// concurrentOps x chunk bytes (concurrentOps = nChannels x nHeads). A chunk crosses three stages in
// turn (src/device/all_reduce.h, RunWorkColl<AllReduce, NVLS, Simple> one-node path: scatter warps copy
// the rank's chunk into the NVLS buffer, reduce warps multimem.ld_reduce it through the switch and
// multimem.st the sum back, gather warps copy it out), so the last loop leaves the pipeline
// (stages - 1) loops after the first stage is done: the fill is (stages - 1) loops, each at most the
// whole call when the call is smaller than one loop. The fill therefore grows with the chunk NCCL picks
// (16 KiB at 1-8 MiB on 8 GPUs, 32 KiB to 64 MiB, 64 KiB to 1 GiB, 128 KiB above): the ramp of bus
// bandwidth over 1-64 MiB.
#include "sim/coll/nccl_model.hpp"
#include "sim/core/units.hpp"

namespace plansim {

// NVLS chunk size NCCL picks for an all-reduce of `call` bytes with `heads` heads (calcCollChunking).
Bytes nvls_chunk_bytes(const NcclModelParams& m, Bytes call, int heads);
// Bytes one loop of all channels moves: nvls_channels x heads x chunk.
Bytes nvls_loop_bytes(const NcclModelParams& m, Bytes call, int heads);
// Pipeline fill of the call, in bytes of the call's payload moved at its rate: (stages - 1) x
// min(call, loop bytes). 0 when the chunk or the channels are 0 (NcclModelParams::ideal()).
Bytes nvls_fill_bytes(const NcclModelParams& m, Bytes call, int heads);

// NVLS-Tree (multi-node NVLS all-reduce, algo_nvls_tree.cpp). Its chunk is calcCollChunking's NVLS_TREE
// branch (src/enqueue.cc, NCCL 2.22-2.23): nvlsChunkSize (128 KiB), at most 64 KiB on 4 servers or more
// (NCCL_NVLSTREE_MAX_CHUNKSIZE default), then 256 / 128 / 64 / 32 KiB below 32 / 16 / 4 / 1 x
// concurrentOps x chunk bytes (concurrentOps = nvlsChannels x nHeads, the channels all used at every size).
Bytes nvls_tree_chunk_bytes(const NcclModelParams& m, Bytes call, int heads, int nodes);
// Its fill: a chunk crosses the one-node stages (scatter, switch reduce, multicast + gather) and, between
// the switch reduce and the multicast, `levels` network hops up the tree over servers and `levels` down
// (src/device/all_reduce.h RunWorkColl<AllReduce, NVLS_TREE, Simple>: the reduce warps send the
// switch-reduced chunk to the tree parent, the broadcast warps receive it from the parent before the
// multimem store), so (nvls_pipeline_stages + 2 levels - 1) loops of nvls_channels x heads x chunk (each at
// most the call). The stage count is this model's reading of the kernel's structure, not an NCCL constant.
Bytes nvls_tree_fill_bytes(const NcclModelParams& m, Bytes call, int heads, int nodes, int levels);

}  // namespace plansim
