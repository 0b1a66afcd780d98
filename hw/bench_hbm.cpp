#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <iostream>
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
namespace {

// Compares the first and last `window` floats of the copy with the pattern it was filled with.
std::size_t check_copy(const DeviceBuffer& dst, std::size_t count, const Stream& s) {
  const std::size_t window = std::min<std::size_t>(count, 4096);
  std::vector<float> head(window), tail(window);
  PLANSIM_CUDA(cudaMemcpyAsync(head.data(), dst.get(), window * sizeof(float), cudaMemcpyDeviceToHost, s.get()));
  PLANSIM_CUDA(cudaMemcpyAsync(tail.data(), dst.as<float>() + (count - window), window * sizeof(float),
                               cudaMemcpyDeviceToHost, s.get()));
  s.sync();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < window; ++i) {
    wrong += head[i] != pattern_value(0, i);
    wrong += tail[i] != pattern_value(0, count - window + i);
  }
  return wrong;
}

}  // namespace

int run_hbm_bench(const CopyBenchOptions& opt) {
  const std::vector<std::size_t> sizes = size_sweep(opt.min_bytes, opt.max_bytes, opt.factor);
  PLANSIM_CUDA(cudaSetDevice(opt.device));
  const DeviceInfo dev = device_info(opt.device);
  Stream stream;
  DeviceBuffer src(opt.max_bytes), dst(opt.max_bytes);
  NvmlSampler sampler({opt.device});
  nlohmann::json doc = make_bench_document(
      "hbm", device_json(opt.device),
      {{"iters", opt.iters}, {"warmup", opt.warmup}, {"method", "cudaMemcpyAsync device to device"},
       {"bytes_moved", "2 x size (read + write)"}});
  std::cout << fmt::format("# plansim-hw bench hbm: device-to-device copy on {} ({}), {} iterations\n", dev.name,
                           opt.device, opt.iters)
            << fmt::format("#{:>11}  {:>10}  {:>10}  {:>6}\n#{:>11}  {:>10}  {:>10}\n", "size", "time", "bandwidth",
                           "#wrong", "(B)", "(us)", "(GB/s)");
  std::size_t total_wrong = 0;
  for (std::size_t size : sizes) {
    const std::size_t count = size / sizeof(float);
    if (count == 0) continue;
    fill_pattern(src.as<float>(), count, 0, stream.get());
    PLANSIM_CUDA(cudaMemsetAsync(dst.get(), 0, size, stream.get()));
    PLANSIM_CUDA(cudaMemcpyAsync(dst.get(), src.get(), size, cudaMemcpyDeviceToDevice, stream.get()));
    const std::size_t wrong = check_copy(dst, count, stream);
    total_wrong += wrong;
    for (int i = 0; i < opt.warmup; ++i)
      PLANSIM_CUDA(cudaMemcpyAsync(dst.get(), src.get(), size, cudaMemcpyDeviceToDevice, stream.get()));
    Event start, stop;
    start.record(stream.get());
    for (int i = 0; i < opt.iters; ++i)
      PLANSIM_CUDA(cudaMemcpyAsync(dst.get(), src.get(), size, cudaMemcpyDeviceToDevice, stream.get()));
    stop.record(stream.get());
    const double seconds = elapsed_seconds(start, stop) / opt.iters;
    const double bw = 2.0 * static_cast<double>(size) / seconds;
    std::cout << fmt::format("{:>12}  {:>10.2f}  {:>10.1f}  {:>6}\n", size, seconds * 1e6, bw / 1e9, wrong);
    doc["rows"].push_back({{"size_bytes", size}, {"time_s", seconds}, {"bytes_moved", 2 * size},
                           {"bandwidth_Bps", bw}, {"wrong", wrong}});
  }
  doc["environment"] = bench_environment({opt.device}, sampler.stop());
  if (!opt.json.empty()) write_bench_json(opt.json, doc);
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace plansim::hw
