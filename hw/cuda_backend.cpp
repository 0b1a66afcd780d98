#include "hw/cuda_backend.hpp"

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <vector>

#include "hw/check.hpp"
#include "hw/cuda_raii.hpp"
#include "hw/gemm_problem.hpp"
#include "hw/kernels.hpp"
#ifdef PLANSIM_HAVE_CUDNN
#include "hw/cudnn_sdpa.hpp"
#endif

namespace plansim::hw {

bool have_fused_attention() {
#ifdef PLANSIM_HAVE_CUDNN
  return true;
#else
  return false;
#endif
}

namespace {

using DimsKey = std::array<std::int64_t, 4>;
std::int64_t whole(double v) { return std::max<std::int64_t>(1, std::llround(v)); }
DimsKey key_of(const GemmDims& d) { return {whole(d.m), whole(d.n), whole(d.k), whole(d.batch)}; }
std::size_t bytes_of(double elems, double elem) {
  return std::max<std::size_t>(256, static_cast<std::size_t>(std::ceil(elems * elem)));
}
// The unfused fallback keeps its scores (m x n per head) under this many elements per chunk.
constexpr double kMaxScoreElems = 64.0 * 1024 * 1024;

class CudaBackend final : public ExecBackend {
 public:
  CudaBackend(const CudaBackendOptions& opt, RunControl& ctl) : opt_(opt), ctl_(ctl) {
    opt_.fused_attention = opt.fused_attention && have_fused_attention();
  }
  ~CudaBackend() override {
    cudaSetDevice(opt_.device);
    if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
    if (graph_ != nullptr) cudaGraphDestroy(graph_);
    problems_.clear();
#ifdef PLANSIM_HAVE_CUDNN
    sdpa_.clear();
    cudnn_destroy_handle(cudnn_);
#endif
    if (lt_ != nullptr) cublasLtDestroy(lt_);
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    for (cudaStream_t s : streams_) cudaStreamDestroy(s);
    if (!ctl_.aborting())  // after ncclCommAbort (the watchdog) they are already gone
      for (ncclComm_t c : comms_) ncclCommDestroy(c);
  }

  void bind_thread() override { PLANSIM_CUDA(cudaSetDevice(opt_.device)); }

  StreamId create_stream(bool high_priority) override {
    int least = 0, greatest = 0;
    PLANSIM_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    cudaStream_t s = nullptr;
    PLANSIM_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, high_priority ? greatest : least));
    streams_.push_back(s);
    return static_cast<StreamId>(streams_.size() - 1);
  }

  EventId create_event(EventUse use) override {
    cudaEvent_t e = nullptr;
    PLANSIM_CUDA(cudaEventCreateWithFlags(&e, use == EventUse::timing ? cudaEventDefault : cudaEventDisableTiming));
    events_.push_back(e);
    timing_.push_back(use == EventUse::timing);
    return static_cast<EventId>(events_.size() - 1);
  }

  void prepare(const LaunchPlan& lp, const RankLaunches& rl) override {
    const ElementBytes eb = element_bytes(opt_.dtype);
    PLANSIM_CUBLAS(cublasLtCreate(&lt_));
    cudaStream_t s0 = streams_.at(0);
    a_ = DeviceBuffer(bytes_of(lp.gemm_a_elems, eb.ab));
    b_ = DeviceBuffer(bytes_of(lp.gemm_b_elems, eb.ab));
    d_ = DeviceBuffer(bytes_of(lp.gemm_d_elems, eb.cd));
    // Random operands: zeros draw less power and run faster than real data.
    fill_random_operand(a_.get(), opt_.dtype, a_.bytes() / static_cast<std::size_t>(eb.ab), 1, s0);
    fill_random_operand(b_.get(), opt_.dtype, b_.bytes() / static_cast<std::size_t>(eb.ab), 2, s0);
    copy_src_ = DeviceBuffer(bytes_of(lp.copy_bytes, 1));
    copy_dst_ = DeviceBuffer(bytes_of(lp.copy_bytes, 1));
    send_ = DeviceBuffer(bytes_of(lp.comm_bytes, 1));
    recv_ = DeviceBuffer(bytes_of(lp.comm_bytes, 1));
    PLANSIM_CUDA(cudaMemsetAsync(send_.get(), 0, send_.bytes(), s0));
    barrier_ = DeviceBuffer(sizeof(float));
    PLANSIM_CUDA(cudaMemsetAsync(barrier_.get(), 0, barrier_.bytes(), s0));
    workspace_ = DeviceBuffer(kGemmWorkspaceBytes);
    // Attention in the model's 16-bit type (bf16 for fp8/fp32 models, as training frameworks run it).
    attn_dtype_ = opt_.dtype == GemmDtype::kFp16 ? GemmDtype::kFp16 : GemmDtype::kBf16;
    if (lp.attention_qkv_elems > 0) {
      for (DeviceBuffer* buf : {&q_, &k_, &v_, &o_, &do_, &dq_, &dk_, &dv_}) {
        *buf = DeviceBuffer(bytes_of(lp.attention_qkv_elems, 2));
        fill_random_operand(buf->get(), attn_dtype_, buf->bytes() / 2, 3, s0);
      }
      stats_ = DeviceBuffer(bytes_of(lp.attention_stats_elems, 4));
      PLANSIM_CUDA(cudaMemsetAsync(stats_.get(), 0, stats_.bytes(), s0));
    }
    std::size_t attention_workspace = 0;
#ifdef PLANSIM_HAVE_CUDNN
    if (opt_.fused_attention && lp.attention_qkv_elems > 0) cudnn_ = cudnn_create_handle();
#endif
    double ua = 0, ub = 0, ud = 0;  // the unfused fallback's operands
    for (const Launch& l : rl.launches)
      for (const KernelLaunch& k : l.kernels) {
        if (k.kind == KernelKind::gemm) gemm(k.dims, opt_.dtype);
        if (k.kind != KernelKind::attention) continue;
#ifdef PLANSIM_HAVE_CUDNN
        if (opt_.fused_attention) {
          const auto key = std::pair{key_of(k.dims), k.backward};
          if (!sdpa_.contains(key)) {
            const DimsKey d = key.first;
            std::unique_ptr<CudnnSdpa> p;
            try {
              p = std::make_unique<CudnnSdpa>(cudnn_, SdpaShape{d[3], d[0], d[1], d[2], k.causal, k.backward}, attn_dtype_);
            } catch (const GpuError& e) {
              throw std::runtime_error(fmt::format("cuDNN's fused attention ({} x {} queries x {} keys x head dim {}, {}): "
                                                   "{}; --unfused-attention times it unfused instead",
                                                   d[3], d[0], d[1], d[2], k.backward ? "backward" : "forward", e.what()));
            }
            fmt::print(stderr, "plansim-hw: cuDNN fused attention {} x {} x {} x {} ({}): {}\n", d[3], d[0], d[1], d[2],
                       k.backward ? "backward" : "forward", p->lowering_name());
            attention_workspace = std::max(attention_workspace, p->workspace_bytes());
            sdpa_.emplace(key, std::move(p));
          }
          continue;
        }
#endif
        // Unfused: per chunk of heads, QKᵀ (m x k)·(k x n), softmax, A·V (m x n)·(n x k); backward the four
        // products of dV, dP, dQ, dK.
        for (int64_t chunk : attention_chunks(k.dims, kMaxScoreElems)) {
          const double c = static_cast<double>(chunk);
          for (const GemmDims& g : unfused_products(k, c)) {
            gemm(g, attn_dtype_);
            ua = std::max(ua, g.m * g.k * c);
            ub = std::max(ub, g.k * g.n * c);
            ud = std::max(ud, g.m * g.n * c);
          }
        }
      }
    if (ud > 0) {
      ua_ = DeviceBuffer(bytes_of(ua, 2));
      ub_ = DeviceBuffer(bytes_of(ub, 2));
      scores_ = DeviceBuffer(bytes_of(ud, 2));
      fill_random_operand(ua_.get(), attn_dtype_, ua_.bytes() / 2, 4, s0);
      fill_random_operand(ub_.get(), attn_dtype_, ub_.bytes() / 2, 5, s0);
    }
    attention_ws_ = DeviceBuffer(std::max<std::size_t>(attention_workspace, 256));
    PLANSIM_CUDA(cudaStreamSynchronize(s0));
  }

  CommId split(int colour, int key) override {
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;     // the watchdog can abort a split that a failed peer never joins
    cfg.splitShare = 1;   // children share the world's resources (channels, buffers)
    ncclComm_t comm = nullptr;
    ctl_.await(opt_.world, ncclCommSplit(opt_.world, colour < 0 ? NCCL_SPLIT_NOCOLOR : colour, key, &comm, &cfg),
               "ncclCommSplit");
    if (comm == nullptr) return kNoComm;
    ctl_.await(comm, ncclInProgress, "ncclCommSplit (new communicator)");
    ctl_.add(comm);
    comms_.push_back(comm);
    return static_cast<CommId>(comms_.size() - 1);
  }

  void record(EventId e, StreamId s) override {
    // Inside a capture a timing event must be an external event-record node to be timed.
    if (capturing_ && timing_[e]) PLANSIM_CUDA(cudaEventRecordWithFlags(events_[e], streams_[s], cudaEventRecordExternal));
    else PLANSIM_CUDA(cudaEventRecord(events_[e], streams_[s]));
  }
  void wait(StreamId s, EventId e) override { PLANSIM_CUDA(cudaStreamWaitEvent(streams_[s], events_[e], 0)); }

  void compute(const KernelLaunch& k, StreamId sid) override {
    cudaStream_t st = streams_[sid];
    switch (k.kind) {
      case KernelKind::gemm: gemm(k.dims, opt_.dtype).run(a_.get(), b_.get(), d_.get(), workspace_.get(), st); break;
      case KernelKind::attention: attention(k, st); break;
      case KernelKind::copy: {
        const auto chunk = static_cast<std::size_t>(kCopyChunkBytes);
        for (auto left = static_cast<std::size_t>(k.bytes / 2); left > 0; left -= std::min(left, chunk))
          copy_bytes(copy_src_.get(), copy_dst_.get(), std::min(left, std::min(chunk, copy_src_.bytes())), st);
        break;
      }
    }
  }

  void collective(CommOp op, CommId c, double bytes, int nranks, StreamId sid) override {
    ncclComm_t comm = comms_.at(c);
    cudaStream_t st = streams_[sid];
    const std::size_t elem = static_cast<std::size_t>(element_bytes(opt_.dtype).ab);
    const ncclDataType_t type = elem == 4 ? ncclFloat32 : elem == 2 ? ncclBfloat16 : ncclUint8;
    const auto count = static_cast<std::size_t>(bytes / static_cast<double>(elem));
    const auto n = static_cast<std::size_t>(nranks);
    void* send = send_.get();
    void* recv = recv_.get();
    switch (op) {
      case CommOp::all_reduce: ctl_.await(comm, ncclAllReduce(send, recv, count, type, ncclSum, comm, st), "ncclAllReduce"); break;
      case CommOp::all_gather: ctl_.await(comm, ncclAllGather(send, recv, count / n, type, comm, st), "ncclAllGather"); break;
      case CommOp::reduce_scatter:
        ctl_.await(comm, ncclReduceScatter(send, recv, count / n, type, ncclSum, comm, st), "ncclReduceScatter");
        break;
      case CommOp::all_to_all: {
        const std::size_t per = count / n, stride = per * elem;
        PLANSIM_NCCL(ncclGroupStart());
        for (std::size_t p = 0; p < n; ++p) {
          PLANSIM_NCCL(ncclSend(static_cast<char*>(send) + p * stride, per, type, static_cast<int>(p), comm, st));
          PLANSIM_NCCL(ncclRecv(static_cast<char*>(recv) + p * stride, per, type, static_cast<int>(p), comm, st));
        }
        ctl_.await(comm, ncclGroupEnd(), "ncclGroupEnd (all-to-all)");
        break;
      }
      case CommOp::send_recv: throw std::invalid_argument("a send_recv collective: the plan compiler emits send/recv ops");
    }
  }

  void send(CommId c, int peer, double bytes, StreamId s) override { p2p(true, c, peer, bytes, s); }
  void recv(CommId c, int peer, double bytes, StreamId s) override { p2p(false, c, peer, bytes, s); }

  void barrier(StreamId s) override {
    ctl_.await(opt_.world, ncclAllReduce(barrier_.get(), barrier_.get(), 1, ncclFloat32, ncclSum, opt_.world, streams_[s]),
               "ncclAllReduce (barrier)");
  }

  void begin_capture(StreamId origin) override {
    PLANSIM_CUDA(cudaStreamBeginCapture(streams_[origin], cudaStreamCaptureModeThreadLocal));
    capturing_ = true;
  }
  void end_capture(StreamId origin) override {
    capturing_ = false;
    PLANSIM_CUDA(cudaStreamEndCapture(streams_[origin], &graph_));
    PLANSIM_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void launch_captured(StreamId origin) override { PLANSIM_CUDA(cudaGraphLaunch(exec_, streams_[origin])); }

  void synchronize(StreamId s) override {
    // Polls, so that an abort (ncclCommAbort from the watchdog) releases this thread.
    for (;;) {
      const cudaError_t st = cudaStreamQuery(streams_[s]);
      if (st == cudaSuccess) return;
      if (st != cudaErrorNotReady) PLANSIM_CUDA(st);
      if (ctl_.aborting()) throw AbortedError("stopped waiting for the GPU: the run is being aborted");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  double elapsed_s(EventId from, EventId to) override {
    float ms = 0;
    PLANSIM_CUDA(cudaEventElapsedTime(&ms, events_[from], events_[to]));
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  static std::vector<GemmDims> unfused_products(const KernelLaunch& k, double batch) {
    const GemmDims& d = k.dims;  // m queries, n keys, k head dim
    const GemmDims qk{d.m, d.n, d.k, batch}, av{d.m, d.k, d.n, batch}, kv{d.n, d.k, d.m, batch};
    if (!k.backward) return {qk, av};
    return {kv, qk, av, kv};  // dV = Pᵀ·dO, dP = dO·Vᵀ, dQ = dS·K, dK = dSᵀ·Q
  }

  GemmProblem& gemm(const GemmDims& d, GemmDtype dtype) {
    const DimsKey key = key_of(d);
    auto it = problems_.find({key, dtype});
    if (it == problems_.end())
      it = problems_.emplace(std::pair{key, dtype},
                             std::make_unique<GemmProblem>(lt_, GemmShape{key[0], key[1], key[2]}, dtype, key[3]))
               .first;
    return *it->second;
  }

  void attention(const KernelLaunch& k, cudaStream_t st) {
#ifdef PLANSIM_HAVE_CUDNN
    if (opt_.fused_attention) {
      const SdpaBuffers b{q_.get(), k_.get(), v_.get(), o_.get(), stats_.get(), do_.get(), dq_.get(), dk_.get(), dv_.get()};
      sdpa_.at({key_of(k.dims), k.backward})->run(cudnn_, b, attention_ws_.get(), st);
      return;
    }
#endif
    for (int64_t chunk : attention_chunks(k.dims, kMaxScoreElems)) {
      const double c = static_cast<double>(chunk);
      const std::vector<GemmDims> products = unfused_products(k, c);
      for (size_t i = 0; i < products.size(); ++i) {
        gemm(products[i], attn_dtype_).run(ua_.get(), ub_.get(), scores_.get(), workspace_.get(), st);
        if (i == 0)  // the scores' (causal) softmax
          softmax_rows(scores_.get(), 2, static_cast<std::size_t>(k.dims.m * c), static_cast<std::size_t>(k.dims.n),
                       static_cast<std::size_t>(k.dims.m), k.causal, st);
      }
    }
  }

  void p2p(bool is_send, CommId c, int peer, double bytes, StreamId s) {
    ncclComm_t comm = comms_.at(c);
    const auto count = static_cast<std::size_t>(bytes);
    PLANSIM_NCCL(ncclGroupStart());
    if (is_send) PLANSIM_NCCL(ncclSend(send_.get(), count, ncclUint8, peer, comm, streams_[s]));
    else PLANSIM_NCCL(ncclRecv(recv_.get(), count, ncclUint8, peer, comm, streams_[s]));
    ctl_.await(comm, ncclGroupEnd(), is_send ? "ncclSend" : "ncclRecv");
  }

  CudaBackendOptions opt_;
  RunControl& ctl_;
  GemmDtype attn_dtype_ = GemmDtype::kBf16;
  bool capturing_ = false;
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> events_;
  std::vector<bool> timing_;
  std::vector<ncclComm_t> comms_;
  cublasLtHandle_t lt_ = nullptr;
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
  DeviceBuffer a_, b_, d_, copy_src_, copy_dst_, send_, recv_, barrier_, workspace_;
  DeviceBuffer q_, k_, v_, o_, do_, dq_, dk_, dv_, stats_, ua_, ub_, scores_, attention_ws_;
  std::map<std::pair<DimsKey, GemmDtype>, std::unique_ptr<GemmProblem>> problems_;
#ifdef PLANSIM_HAVE_CUDNN
  void* cudnn_ = nullptr;
  std::map<std::pair<DimsKey, bool>, std::unique_ptr<CudnnSdpa>> sdpa_;
#endif
};

}  // namespace

std::unique_ptr<ExecBackend> make_cuda_backend(const CudaBackendOptions& opt, RunControl& control) {
  return std::make_unique<CudaBackend>(opt, control);
}

}  // namespace plansim::hw
