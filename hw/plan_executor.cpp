#include "hw/plan_executor.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nccl.h>

#include <array>
#include <cmath>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>

#include "hw/check.hpp"
#include "hw/cuda_raii.hpp"
#include "hw/gemm_problem.hpp"

namespace plansim::hw {
namespace {

using DimsKey = std::array<std::int64_t, 4>;

std::int64_t whole(double v) { return std::max<std::int64_t>(1, std::llround(v)); }
DimsKey key_of(const GemmDims& d) { return {whole(d.m), whole(d.n), whole(d.k), whole(d.batch)}; }
std::size_t bytes_of(double elems, std::size_t elem) {
  return std::max<std::size_t>(256, static_cast<std::size_t>(std::ceil(elems)) * elem);
}

class RankRunner {
 public:
  RankRunner(const LaunchPlan& lp, const RankLaunches& rl, int device, ncclComm_t world, const ExecuteOptions& opt)
      : lp_(lp), rl_(rl), world_(world) {
    PLANSIM_CUDA(cudaSetDevice(device));
    const GemmTypes t = gemm_types(opt.dtype);
    ab_bytes_ = t.ab_bytes;
    cd_bytes_ = t.cd_bytes;
    comm_elem_ = t.ab_bytes;
    comm_type_ = comm_elem_ == 4 ? ncclFloat32 : comm_elem_ == 2 ? ncclBfloat16 : ncclUint8;
    int least = 0, greatest = 0;
    PLANSIM_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (uint32_t s = 0; s < rl.streams; ++s)
      streams_.push_back(std::make_unique<Stream>(s == static_cast<uint32_t>(StreamKind::compute) ? least : greatest));
    for (size_t i = 0; i < rl.launches.size(); ++i) {
      start_.emplace_back();
      end_.emplace_back();
    }
    PLANSIM_CUBLAS(cublasLtCreate(&lt_));
    a_ = DeviceBuffer(bytes_of(lp.gemm_a_elems, ab_bytes_));
    b_ = DeviceBuffer(bytes_of(lp.gemm_b_elems, ab_bytes_));
    d_ = DeviceBuffer(bytes_of(lp.gemm_d_elems, cd_bytes_));
    PLANSIM_CUDA(cudaMemsetAsync(a_.get(), 0, a_.bytes(), streams_[0]->get()));
    PLANSIM_CUDA(cudaMemsetAsync(b_.get(), 0, b_.bytes(), streams_[0]->get()));
    copy_src_ = DeviceBuffer(bytes_of(lp.copy_bytes, 1));
    copy_dst_ = DeviceBuffer(bytes_of(lp.copy_bytes, 1));
    send_ = DeviceBuffer(bytes_of(lp.comm_bytes, 1));
    recv_ = DeviceBuffer(bytes_of(lp.comm_bytes, 1));
    PLANSIM_CUDA(cudaMemsetAsync(send_.get(), 0, send_.bytes(), streams_[0]->get()));
    barrier_ = DeviceBuffer(sizeof(float));
    workspace_ = DeviceBuffer(kGemmWorkspaceBytes);
    for (const Launch& l : rl.launches)
      for (const KernelLaunch& k : l.kernels) {
        if (k.kind != KernelKind::gemm) continue;
        const DimsKey key = key_of(k.dims);
        if (!problems_.contains(key))
          problems_.emplace(key, std::make_unique<GemmProblem>(lt_, GemmShape{key[0], key[1], key[2]}, opt.dtype, key[3]));
      }
    PLANSIM_CUDA(cudaDeviceSynchronize());
  }
  ~RankRunner() {
    for (ncclComm_t c : comms_)
      if (c != nullptr) ncclCommDestroy(c);
    problems_.clear();
    if (lt_ != nullptr) cublasLtDestroy(lt_);
  }
  RankRunner(const RankRunner&) = delete;
  RankRunner& operator=(const RankRunner&) = delete;

  // Collective over the world: one ncclCommSplit per round (LaunchPlan::split_rounds), in order, on
  // every rank; colour = the index of the round's communicator holding this rank, key = its position.
  void split_communicators() {
    comms_.assign(lp_.communicators.size(), nullptr);
    for (const auto& round : lp_.split_rounds) {
      int colour = NCCL_SPLIT_NOCOLOR, key = 0;
      uint32_t mine = 0;
      for (uint32_t c : round) {
        const auto& ranks = lp_.communicators[c].ranks;
        for (size_t i = 0; i < ranks.size(); ++i)
          if (ranks[i] == rl_.rank) {
            colour = static_cast<int>(c);
            key = static_cast<int>(i);
            mine = c;
          }
      }
      ncclComm_t comm = nullptr;
      PLANSIM_NCCL(ncclCommSplit(world_, colour, key, &comm, nullptr));
      if (colour != NCCL_SPLIT_NOCOLOR) comms_[mine] = comm;
    }
  }

  // NCCL connects peers lazily at their first operation, blocking the host until the peer gets there:
  // every rank touches each of its communicators once (an all-reduce and a send/recv with every peer,
  // one element each), in the plan's communicator order, which no cycle of waits can break.
  void connect() {
    cudaStream_t s0 = streams_[0]->get();
    for (size_t c = 0; c < comms_.size(); ++c) {
      if (comms_[c] == nullptr) continue;
      const auto& ranks = lp_.communicators[c].ranks;
      PLANSIM_NCCL(ncclAllReduce(send_.get(), recv_.get(), 1, comm_type_, ncclSum, comms_[c], s0));
      PLANSIM_NCCL(ncclGroupStart());
      for (size_t p = 0; p < ranks.size(); ++p) {
        if (ranks[p] == rl_.rank) continue;
        PLANSIM_NCCL(ncclSend(send_.get(), 1, comm_type_, static_cast<int>(p), comms_[c], s0));
        PLANSIM_NCCL(ncclRecv(recv_.get(), 1, comm_type_, static_cast<int>(p), comms_[c], s0));
      }
      PLANSIM_NCCL(ncclGroupEnd());
      PLANSIM_CUDA(cudaStreamSynchronize(s0));
    }
  }

  void run_iteration() {
    cudaStream_t s0 = streams_[0]->get();
    PLANSIM_NCCL(ncclAllReduce(barrier_.get(), barrier_.get(), 1, ncclFloat32, ncclSum, world_, s0));
    PLANSIM_CUDA(cudaStreamSynchronize(s0));
    zero_.record(s0);
    for (size_t s = 1; s < streams_.size(); ++s) PLANSIM_CUDA(cudaStreamWaitEvent(streams_[s]->get(), zero_.get(), 0));
    for (const Launch& l : rl_.launches) {
      cudaStream_t st = streams_[l.stream]->get();
      for (uint32_t w : l.waits) PLANSIM_CUDA(cudaStreamWaitEvent(st, end_[w].get(), 0));
      start_[l.op].record(st);
      switch (l.kind) {
        case OpKind::compute: compute(l, st); break;
        case OpKind::collective: collective(l, st); break;
        case OpKind::send:
        case OpKind::recv: point_to_point(l, st); break;
      }
      end_[l.op].record(st);
    }
    for (auto& s : streams_) s->sync();
  }

  [[nodiscard]] std::vector<OpSpan> spans() const {
    std::vector<OpSpan> out;
    for (size_t i = 0; i < rl_.launches.size(); ++i)
      out.push_back({elapsed_seconds(zero_, start_[i]), elapsed_seconds(zero_, end_[i])});
    return out;
  }

 private:
  void compute(const Launch& l, cudaStream_t st) {
    for (const KernelLaunch& k : l.kernels) switch (k.kind) {
        case KernelKind::gemm: problems_.at(key_of(k.dims))->run(a_.get(), b_.get(), d_.get(), workspace_.get(), st); break;
        case KernelKind::softmax: {
          const DimsKey key = key_of(k.dims);
          softmax_rows(d_.get(), cd_bytes_, static_cast<std::size_t>(key[0] * key[3]), static_cast<std::size_t>(key[1]), st);
          break;
        }
        case KernelKind::copy: {
          const auto chunk = static_cast<std::size_t>(kCopyChunkBytes);
          for (auto left = static_cast<std::size_t>(k.bytes / 2); left > 0; left -= std::min(left, chunk))
            copy_bytes(copy_src_.get(), copy_dst_.get(), std::min(left, std::min(chunk, copy_src_.bytes())), st);
          break;
        }
      }
  }

  void collective(const Launch& l, cudaStream_t st) {
    ncclComm_t comm = comms_[l.communicator];
    const auto n = lp_.communicators[l.communicator].ranks.size();
    const auto count = static_cast<std::size_t>(l.bytes / static_cast<double>(comm_elem_));
    void* send = send_.get();
    void* recv = recv_.get();
    switch (l.comm) {
      case CommOp::all_reduce: PLANSIM_NCCL(ncclAllReduce(send, recv, count, comm_type_, ncclSum, comm, st)); break;
      case CommOp::all_gather: PLANSIM_NCCL(ncclAllGather(send, recv, count / n, comm_type_, comm, st)); break;
      case CommOp::reduce_scatter:
        PLANSIM_NCCL(ncclReduceScatter(send, recv, count / n, comm_type_, ncclSum, comm, st));
        break;
      case CommOp::all_to_all: {
        const std::size_t per = count / n, stride = per * comm_elem_;
        PLANSIM_NCCL(ncclGroupStart());
        for (std::size_t p = 0; p < n; ++p) {
          PLANSIM_NCCL(ncclSend(static_cast<char*>(send) + p * stride, per, comm_type_, static_cast<int>(p), comm, st));
          PLANSIM_NCCL(ncclRecv(static_cast<char*>(recv) + p * stride, per, comm_type_, static_cast<int>(p), comm, st));
        }
        PLANSIM_NCCL(ncclGroupEnd());
        break;
      }
      case CommOp::send_recv: throw std::invalid_argument("a send_recv collective: the plan compiler emits send/recv ops");
    }
  }

  // Channel communicators have the sender as rank 0 and the receiver as rank 1.
  void point_to_point(const Launch& l, cudaStream_t st) {
    ncclComm_t comm = comms_[l.communicator];
    const auto count = static_cast<std::size_t>(l.bytes / static_cast<double>(comm_elem_));
    PLANSIM_NCCL(ncclGroupStart());
    if (l.kind == OpKind::send) PLANSIM_NCCL(ncclSend(send_.get(), count, comm_type_, 1, comm, st));
    else PLANSIM_NCCL(ncclRecv(recv_.get(), count, comm_type_, 0, comm, st));
    PLANSIM_NCCL(ncclGroupEnd());
  }

  const LaunchPlan& lp_;
  const RankLaunches& rl_;
  ncclComm_t world_;
  std::size_t ab_bytes_ = 2, cd_bytes_ = 2, comm_elem_ = 2;
  ncclDataType_t comm_type_ = ncclBfloat16;
  std::vector<std::unique_ptr<Stream>> streams_;
  std::deque<Event> start_, end_;
  Event zero_;
  cublasLtHandle_t lt_ = nullptr;
  DeviceBuffer a_, b_, d_, copy_src_, copy_dst_, send_, recv_, barrier_, workspace_;
  std::map<DimsKey, std::unique_ptr<GemmProblem>> problems_;
  std::vector<ncclComm_t> comms_;
};

}  // namespace

std::vector<std::vector<OpSpan>> execute_on_gpus(const LaunchPlan& plan, const ExecuteOptions& opt,
                                                 const ProcessGroup& procs, const NcclWorld& world) {
  if (world.nranks() != plan.world)
    throw std::invalid_argument(fmt::format("the plan needs {} ranks, the NCCL world has {}", plan.world, world.nranks()));
  const int local = world.local_count();
  std::vector<std::vector<OpSpan>> mine(static_cast<size_t>(local));
  std::vector<std::exception_ptr> errors(static_cast<size_t>(local));
  std::vector<std::thread> threads;
  for (int i = 0; i < local; ++i)
    threads.emplace_back([&, i] {
      try {
        const auto rank = static_cast<size_t>(world.global_rank(i));
        RankRunner runner(plan, plan.ranks[rank], world.device(i), world.comm(i), opt);
        runner.split_communicators();
        runner.connect();
        std::vector<std::vector<std::vector<OpSpan>>> timed;
        for (int it = 0; it < opt.warmup + opt.iters; ++it) {
          runner.run_iteration();
          if (it >= opt.warmup) timed.push_back({runner.spans()});
        }
        mine[static_cast<size_t>(i)] = mean_spans(timed).front();
      } catch (...) {
        errors[static_cast<size_t>(i)] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  // Every process fills its own ranks; the element-wise sum over processes assembles the world.
  std::vector<double> flat;
  for (const auto& r : plan.ranks) flat.resize(flat.size() + 2 * r.launches.size(), 0.0);
  std::vector<size_t> offset;
  size_t at = 0;
  for (const auto& r : plan.ranks) {
    offset.push_back(at);
    at += 2 * r.launches.size();
  }
  for (int i = 0; i < local; ++i) {
    const auto rank = static_cast<size_t>(world.global_rank(i));
    const auto& spans = mine[static_cast<size_t>(i)];
    for (size_t k = 0; k < spans.size(); ++k) {
      flat[offset[rank] + 2 * k] = spans[k].start_s;
      flat[offset[rank] + 2 * k + 1] = spans[k].end_s;
    }
  }
  procs.sum_in_place(flat);
  std::vector<std::vector<OpSpan>> out(plan.ranks.size());
  for (size_t r = 0; r < plan.ranks.size(); ++r)
    for (size_t k = 0; k < plan.ranks[r].launches.size(); ++k)
      out[r].push_back({flat[offset[r] + 2 * k], flat[offset[r] + 2 * k + 1]});
  return out;
}

}  // namespace plansim::hw
