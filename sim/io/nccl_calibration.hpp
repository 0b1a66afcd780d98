#pragma once
// Reads an NCCL calibration profile (validate/calibration/<system>.yaml) into NcclModelParams: every
// key is optional and overrides the documented default; unknown keys and bad values are ConfigErrors
// at file:line:col. Format:
//   system: hgx-h200                     # free text (which system the numbers were fitted on)
//   source: "..."                        # free text (where the numbers come from)
//   efficiency: {nvlink: 0.82, pcie: 0.8, network: 0.94, other: 1.0, nvls: 0.69}
//   protocol_efficiency: {LL: 0.25, LL128: 0.92, Simple: 1.0}
//   channels: 2
//   nccl_channels: 16                    # channels NCCL opens (default: 16 on NVLink, 2 over PCI)
//   channel_cap: {LL128: 36.7 GB/s}      # per-channel bus-bandwidth cap per protocol (tuning.cc)
//   ll_max: 141 GB/s                     # LL's total bus-bandwidth cap (tuning.cc llMaxBws)
//   ll_max_multi_node: {two_nodes: 39 GB/s, more_nodes: 20.4 GB/s}   # LL's cap across servers (host CPU)
//   pipeline_depth: 8                    # most chunks of pipeline fill a flow pays (NCCL_STEPS)
//   pipeline_chunk: {LL: 32 KiB, LL128: 576000 B, Simple: 512 KiB}
//   nvls_channels: 16                    # channels of an NVLS all-reduce (NCCL_NVLS_NCHANNELS; 1..64)
//   nvls_chunk: 128 KiB                  # largest NVLS chunk (NCCL_NVLS_CHUNKSIZE; >= 16 KiB)
//   simple_slices_per_chunk: 2           # latency rounds of a Simple ring over NVLink (1 = NCCL's tuning model)
//   device_latency: 5 us                 # per call, every call (training included)
//   launch_overhead: 10 us               # a benchmark loop's per-call floor (host launch; measure.hpp)
//   (extra_latency: 10 us                # format 1 only: read as device_latency)
//   net_latency: 0 us                    # per network step: the transport's latency (x2 with Simple)
//   net_overhead: 1 us                   # per intra-server step of a multi-server ring, at least (x3 Simple)
//   base_latency_us: {ring: [LL, LL128, Simple], tree: [...], nvls: [...]}   # negative = protocol off
//   hw_latency_us: {nvlink: {ring: [...], tree: [...], nvls: [...]}, pci: {...}, net: {...}}
#include <filesystem>

#include "sim/coll/nccl_model.hpp"

namespace plansim::io {

NcclModelParams load_nccl_calibration(const std::filesystem::path& file);
NcclModelParams parse_nccl_calibration(const std::string& text, const std::string& name);

}  // namespace plansim::io
