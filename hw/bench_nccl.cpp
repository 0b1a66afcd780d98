#include "hw/bench_nccl.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <cstdlib>
#include <atomic>
#include <exception>
#include <iostream>
#include <memory>
#include <thread>
#include <vector>

#include "hw/bench_output.hpp"
#include "hw/check.hpp"
#include "hw/cuda_raii.hpp"
#include "hw/device.hpp"
#include "hw/environment.hpp"
#include "hw/kernels.hpp"
#include "hw/nccl_bootstrap.hpp"
#include "hw/nccl_expect.hpp"
#include "hw/run_control.hpp"

namespace plansim::hw {
namespace {

// One local GPU's state: its stream, buffers (sized for the largest size) and timing events.
struct Rank {
  int device = 0;
  int rank = 0;
  ncclComm_t comm = nullptr;
  std::unique_ptr<Stream> stream;
  DeviceBuffer send, recv;
  std::unique_ptr<Event> start, stop;  // created on the rank's device, like the stream
};

// Enqueues one op. Out-of-place: send -> recv. In-place: the data already sits in `recv` at the
// position in_place_offset() says, and the op works on recv alone.
void enqueue(NcclOp op, Rank& r, int nranks, const OpCounts& c, bool in_place) {
  float* recv = r.recv.as<float>();
  const float* send = !in_place                 ? r.send.as<float>()
                      : op == NcclOp::kAllGather ? recv + in_place_offset(op, r.rank, c)
                                                 : recv;
  float* out = op == NcclOp::kReduceScatter && in_place ? recv + in_place_offset(op, r.rank, c) : recv;
  const cudaStream_t s = r.stream->get();
  switch (op) {
    case NcclOp::kAllReduce:
      PLANSIM_NCCL(ncclAllReduce(send, out, c.recv_count, ncclFloat, ncclSum, r.comm, s));
      break;
    case NcclOp::kAllGather:
      PLANSIM_NCCL(ncclAllGather(send, out, c.send_count, ncclFloat, r.comm, s));
      break;
    case NcclOp::kReduceScatter:
      PLANSIM_NCCL(ncclReduceScatter(send, out, c.recv_count, ncclFloat, ncclSum, r.comm, s));
      break;
    case NcclOp::kBroadcast:
      PLANSIM_NCCL(ncclBroadcast(send, out, c.recv_count, ncclFloat, kRoot, r.comm, s));
      break;
    case NcclOp::kReduce:
      PLANSIM_NCCL(ncclReduce(send, out, c.recv_count, ncclFloat, ncclSum, kRoot, r.comm, s));
      break;
    case NcclOp::kAllToAll: {
      const std::size_t per = c.send_count / static_cast<std::size_t>(nranks);
      PLANSIM_NCCL(ncclGroupStart());
      for (int p = 0; p < nranks; ++p) {
        const auto off = static_cast<std::size_t>(p) * per;
        PLANSIM_NCCL(ncclSend(send + off, per, ncclFloat, p, r.comm, s));
        PLANSIM_NCCL(ncclRecv(out + off, per, ncclFloat, p, r.comm, s));
      }
      PLANSIM_NCCL(ncclGroupEnd());
      break;
    }
    case NcclOp::kSendRecv: {
      PLANSIM_NCCL(ncclGroupStart());
      PLANSIM_NCCL(ncclSend(send, c.send_count, ncclFloat, (r.rank + 1) % nranks, r.comm, s));
      PLANSIM_NCCL(ncclRecv(out, c.recv_count, ncclFloat, (r.rank - 1 + nranks) % nranks, r.comm, s));
      PLANSIM_NCCL(ncclGroupEnd());
      break;
    }
  }
}

struct RankResult {
  double seconds = 0;
  std::size_t wrong = 0;
};

// Fill, run once and check on the host, warm up, then time `iters` iterations between two events.
RankResult run_one(NcclOp op, Rank& r, int nranks, const OpCounts& c, bool in_place, const NcclBenchOptions& opt) {
  PLANSIM_CUDA(cudaSetDevice(r.device));
  const cudaStream_t s = r.stream->get();
  const auto rank = static_cast<std::uint64_t>(r.rank);
  if (in_place) {
    // The input occupies the send part of the shared buffer (offset for all_gather, all of it otherwise).
    PLANSIM_CUDA(cudaMemsetAsync(r.recv.get(), 0, r.recv.bytes(), s));
    fill_pattern(r.recv.as<float>() + (op == NcclOp::kAllGather ? in_place_offset(op, r.rank, c) : 0),
                 c.send_count, rank, s);
  } else {
    fill_pattern(r.send.as<float>(), c.send_count, rank, s);
    PLANSIM_CUDA(cudaMemsetAsync(r.recv.get(), 0, r.recv.bytes(), s));
  }
  enqueue(op, r, nranks, c, in_place);
  std::vector<float> host(c.recv_count);
  const float* result = r.recv.as<float>() +
                        (in_place && op == NcclOp::kReduceScatter ? in_place_offset(op, r.rank, c) : 0);
  PLANSIM_CUDA(cudaMemcpyAsync(host.data(), result, host.size() * sizeof(float), cudaMemcpyDeviceToHost, s));
  r.stream->sync();
  RankResult out;
  out.wrong = check_received(op, r.rank, nranks, c, host).wrong;

  for (int i = 0; i < opt.warmup; ++i) enqueue(op, r, nranks, c, in_place);
  r.stream->sync();  // the last warm-up collective also lines the ranks up for the timed loop
  r.start->record(s);
  for (int i = 0; i < opt.iters; ++i) enqueue(op, r, nranks, c, in_place);
  r.stop->record(s);
  out.seconds = elapsed_seconds(*r.start, *r.stop) / opt.iters;
  return out;
}

}  // namespace

int run_nccl_bench(const NcclBenchOptions& opt, const ProcessGroup& procs) {
  if (opt.iters < 1 || opt.warmup < 0) throw std::invalid_argument("iterations must be >= 1 and warm-up >= 0");
  const std::vector<std::size_t> sizes = size_sweep(opt.min_bytes, opt.max_bytes, opt.factor);
  NcclWorld world(procs, opt.gpus, {}, opt.timeout_s);
  const int n = world.nranks();
  RunControl control(opt.timeout_s);
  for (int i = 0; i < world.local_count(); ++i) control.add(world.comm(i));
  std::vector<Rank> ranks(static_cast<std::size_t>(world.local_count()));
  for (int i = 0; i < world.local_count(); ++i) {
    Rank& r = ranks[static_cast<std::size_t>(i)];
    r.device = world.device(i);
    r.rank = world.global_rank(i);
    r.comm = world.comm(i);
    PLANSIM_CUDA(cudaSetDevice(r.device));
    r.stream = std::make_unique<Stream>();
    r.start = std::make_unique<Event>();
    r.stop = std::make_unique<Event>();
    r.send = DeviceBuffer(opt.max_bytes);
    r.recv = DeviceBuffer(opt.max_bytes);
  }

  const bool leader = procs.rank() == 0;
  std::vector<int> devices, global_ranks;
  for (const Rank& r : ranks) {
    devices.push_back(r.device);
    global_ranks.push_back(r.rank);
  }
  NvmlSampler sampler(devices);
  // NCCL picks the algorithm unless NCCL_ALGO pins it; calibrate fits one curve per recorded algorithm.
  const char* algo_env = std::getenv("NCCL_ALGO");
  const std::string algorithm = algo_env != nullptr && *algo_env != '\0' ? algo_env : "auto";
  nlohmann::json doc = make_bench_document(
      "nccl", device_json(ranks.front().device),
      {{"op", op_name(opt.op)}, {"nranks", n}, {"processes", procs.size()}, {"gpus_per_process", world.local_count()},
       {"iters", opt.iters}, {"warmup", opt.warmup}, {"time_aggregate", "mean over ranks"},
       {"algorithm", algorithm}});
  if (leader) {
    std::cout << fmt::format("# plansim-hw bench nccl: {} over {} ranks ({} process(es) x {} GPU(s)), {} iterations "
                             "after {} warm-up\n",
                             op_name(opt.op), n, procs.size(), world.local_count(), opt.iters, opt.warmup)
              << nccl_table_header();
  }
  std::size_t total_wrong = 0;
  double busbw_sum = 0;
  int busbw_rows = 0;
  for (std::size_t size : sizes) {
    const OpCounts c = op_counts(opt.op, size, sizeof(float), n);
    if (c.total == 0) continue;  // below one element per rank
    NcclTiming timing[2];
    const int placements = has_in_place(opt.op) ? 2 : 1;
    for (int p = 0; p < placements; ++p) {
      std::vector<RankResult> results(ranks.size());
      std::vector<std::exception_ptr> errors(ranks.size());
      {
        // A failing rank prints at once; the watchdog then aborts every communicator (releasing the ranks
        // waiting in NCCL) and, under MPI, the job.
        std::atomic<int> running{static_cast<int>(ranks.size())};
        std::vector<std::jthread> threads;
        for (std::size_t i = 0; i < ranks.size(); ++i)
          threads.emplace_back([&, i] {
            try {
              results[i] = run_one(opt.op, ranks[i], n, c, p == 1, opt);
            } catch (const std::exception& e) {
              errors[i] = std::current_exception();
              if (!control.aborting()) control.fail(ranks[i].rank, ranks[i].device, e.what());
            }
            --running;
          });
        if (const std::string why = control.watch(running); !why.empty()) {
          for (auto& t : threads) t.join();
          world.forget_aborted();
          procs.abort("bench nccl stopped: " + why, 5);
          throw std::runtime_error("bench nccl stopped: " + why);
        }
      }
      for (const auto& e : errors)
        if (e) std::rethrow_exception(e);
      double local_sum = 0;
      double local_wrong = 0;
      for (const RankResult& r : results) {
        local_sum += r.seconds;
        local_wrong += static_cast<double>(r.wrong);
      }
      NcclTiming& t = timing[p];
      t.seconds = procs.sum(local_sum) / n;
      t.wrong = static_cast<std::size_t>(procs.sum(local_wrong));
      t.bw = bandwidth(opt.op, c.total * sizeof(float), t.seconds, n);
      total_wrong += t.wrong;
      busbw_sum += t.bw.busbw;
      ++busbw_rows;
      doc["rows"].push_back(nccl_row(opt.op, c.total * sizeof(float), c, n, p == 1, t));
    }
    if (leader) std::cout << nccl_table_line(opt.op, c.total * sizeof(float), c, timing[0],
                                             placements == 2 ? &timing[1] : nullptr) << std::flush;
  }
  const nlohmann::json environment =
      gather_environment(procs, local_environment(global_ranks, devices, sampler.stop()), nullptr, devices);
  doc["environment"] = environment;
  if (leader) {
    std::cout << fmt::format("# Out of bounds values : {} {}\n", total_wrong, total_wrong == 0 ? "OK" : "FAILED")
              << fmt::format("# Avg bus bandwidth    : {:.3f} GB/s\n", busbw_rows ? busbw_sum / busbw_rows / 1e9 : 0.0);
    if (!opt.json.empty()) write_bench_json(opt.json, doc);
  }
  return total_wrong == 0 ? 0 : 1;
}

}  // namespace plansim::hw
