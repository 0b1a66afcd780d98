#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "hw/bench_copy.hpp"
#include "hw/bench_output.hpp"
#include "hw/bench_spec.hpp"
#include "hw/check.hpp"
#include "hw/cuda_raii.hpp"
#include "hw/device.hpp"
#include "hw/environment.hpp"
#include "hw/kernels.hpp"
#include "hw/pattern.hpp"

namespace plansim::hw {

int run_p2p_bench(const CopyBenchOptions& opt) {
  const std::vector<std::size_t> sizes = size_sweep(opt.min_bytes, opt.max_bytes, opt.factor);
  int count = 0;
  PLANSIM_CUDA(cudaGetDeviceCount(&count));
  if (count < 2) throw std::invalid_argument(fmt::format("bench p2p needs at least 2 GPUs, {} visible", count));
  const auto n = static_cast<std::size_t>(count);
  std::vector<DeviceBuffer> buffers;
  std::vector<std::unique_ptr<Stream>> streams;
  for (int d = 0; d < count; ++d) {
    PLANSIM_CUDA(cudaSetDevice(d));
    buffers.emplace_back(opt.max_bytes);
    streams.push_back(std::make_unique<Stream>());
    for (int peer = 0; peer < count; ++peer) {
      int can = 0;
      if (peer == d) continue;
      PLANSIM_CUDA(cudaDeviceCanAccessPeer(&can, d, peer));
      if (can) {
        const cudaError_t st = cudaDeviceEnablePeerAccess(peer, 0);
        if (st != cudaErrorPeerAccessAlreadyEnabled) PLANSIM_CUDA(st);
        cudaGetLastError();
      }
    }
  }
  std::vector<int> all_devices;
  for (int d = 0; d < count; ++d) all_devices.push_back(d);
  NvmlSampler sampler(all_devices);
  nlohmann::json doc = make_bench_document("p2p", device_json(0),
                                           {{"iters", opt.iters}, {"warmup", opt.warmup},
                                            {"method", "cudaMemcpyPeerAsync on the source GPU's stream"}});
  std::cout << fmt::format("# plansim-hw bench p2p: {} GPUs, every ordered pair, {} iterations\n", count, opt.iters)
            << fmt::format("#{:>3} {:>4} {:>5}  {:>12}  {:>10}  {:>10}  {:>6}\n", "src", "dst", "peer", "size (B)",
                           "time (us)", "bw (GB/s)", "#wrong");
  std::vector<double> bw_matrix(n * n, 0.0), lat_matrix(n * n, 0.0);
  std::size_t total_wrong = 0;
  for (int src = 0; src < count; ++src) {
    for (int dst = 0; dst < count; ++dst) {
      if (src == dst) continue;
      int peer = 0;
      PLANSIM_CUDA(cudaDeviceCanAccessPeer(&peer, src, dst));
      PLANSIM_CUDA(cudaSetDevice(src));
      const Stream& s = *streams[static_cast<std::size_t>(src)];
      void* from = buffers[static_cast<std::size_t>(src)].get();
      void* to = buffers[static_cast<std::size_t>(dst)].get();
      for (std::size_t size : sizes) {
        const std::size_t elems = size / sizeof(float);
        std::size_t wrong = 0;
        if (elems > 0) {
          fill_pattern(static_cast<float*>(from), elems, 0, s.get());
          PLANSIM_CUDA(cudaMemcpyPeerAsync(to, dst, from, src, size, s.get()));
          float last = -1;
          PLANSIM_CUDA(cudaMemcpyAsync(&last, static_cast<float*>(to) + elems - 1, sizeof(float), cudaMemcpyDefault,
                                       s.get()));
          s.sync();
          wrong = last != pattern_value(0, elems - 1);
        }
        for (int i = 0; i < opt.warmup; ++i) PLANSIM_CUDA(cudaMemcpyPeerAsync(to, dst, from, src, size, s.get()));
        Event start, stop;
        start.record(s.get());
        for (int i = 0; i < opt.iters; ++i) PLANSIM_CUDA(cudaMemcpyPeerAsync(to, dst, from, src, size, s.get()));
        stop.record(s.get());
        const double seconds = elapsed_seconds(start, stop) / opt.iters;
        const double bw = static_cast<double>(size) / seconds;
        total_wrong += wrong;
        const std::size_t cell = static_cast<std::size_t>(src) * n + static_cast<std::size_t>(dst);
        if (size == sizes.front()) lat_matrix[cell] = seconds;
        bw_matrix[cell] = bw;
        std::cout << fmt::format("{:>4} {:>4} {:>5}  {:>12}  {:>10.2f}  {:>10.2f}  {:>6}\n", src, dst, peer ? "yes" : "no",
                                 size, seconds * 1e6, bw / 1e9, wrong);
        doc["rows"].push_back({{"src", src}, {"dst", dst}, {"peer_access", peer != 0}, {"size_bytes", size},
                               {"time_s", seconds}, {"bandwidth_Bps", bw}, {"wrong", wrong}});
      }
    }
  }
  std::cout << fmt::format("# bandwidth at {} B (GB/s) / latency at {} B (us), rows = src, columns = dst\n",
                           sizes.back(), sizes.front());
  for (std::size_t i = 0; i < n; ++i) {
    std::string line = "#";
    for (std::size_t j = 0; j < n; ++j)
      line += i == j ? fmt::format(" {:>15}", "-")
                     : fmt::format(" {:>7.1f}/{:<7.2f}", bw_matrix[i * n + j] / 1e9, lat_matrix[i * n + j] * 1e6);
    std::cout << line << '\n';
  }
  doc["environment"] = bench_environment(all_devices, sampler.stop());
  if (!opt.json.empty()) write_bench_json(opt.json, doc);
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace plansim::hw
