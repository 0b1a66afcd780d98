#include "hw/cudnn_sdpa.hpp"

#include <cudnn.h>
#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "hw/check.hpp"

namespace plansim::hw {
namespace {

void check(cudnnStatus_t st, const char* call, int line) {
  if (st == CUDNN_STATUS_SUCCESS) return;
  throw GpuError("cuDNN", static_cast<int>(st), cudnnGetErrorString(st), call, __FILE__, line);
}
#define PLANSIM_CUDNN(call) check((call), #call, __LINE__)

// An owned backend descriptor.
class Desc {
 public:
  explicit Desc(cudnnBackendDescriptorType_t type) { PLANSIM_CUDNN(cudnnBackendCreateDescriptor(type, &d_)); }
  ~Desc() {
    if (d_ != nullptr) cudnnBackendDestroyDescriptor(d_);
  }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  [[nodiscard]] cudnnBackendDescriptor_t get() const { return d_; }
  template <class T>
  Desc& set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, const T& value) {
    PLANSIM_CUDNN(cudnnBackendSetAttribute(d_, name, type, 1, &value));
    return *this;
  }
  Desc& set_n(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type, int64_t n, const void* values) {
    PLANSIM_CUDNN(cudnnBackendSetAttribute(d_, name, type, n, values));
    return *this;
  }
  Desc& desc(cudnnBackendAttributeName_t name, const Desc& other) {
    cudnnBackendDescriptor_t o = other.get();
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, o);
  }
  void finalize() { PLANSIM_CUDNN(cudnnBackendFinalize(d_)); }

 private:
  cudnnBackendDescriptor_t d_ = nullptr;
};

using Dims = std::vector<int64_t>;

Dims packed(const Dims& d) {
  Dims s(d.size(), 1);
  for (size_t i = d.size() - 1; i > 0; --i) s[i - 1] = s[i] * d[i];
  return s;
}
Dims swap_last(Dims v) {
  std::swap(v[2], v[3]);
  return v;
}

// UIDs of the graph's real tensors (bound in the variant pack); virtual ones count up from kFirstVirtual.
enum Uid : int64_t { kQ = 1, kK, kKt, kV, kVt, kO, kStats, kScale, kNegInf, kDO, kDQ, kDK, kDV, kFirstVirtual = 100 };

class Graph {
 public:
  explicit Graph(cudnnDataType_t io) : io_(io) {}

  const Desc& tensor(int64_t uid, const Dims& dims, const Dims& strides, cudnnDataType_t type, bool by_value = false) {
    auto& t = own(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const bool is_virtual = uid >= kFirstVirtual;
    const int64_t align = 16;
    t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid)
        .set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, type)
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, align)
        .set_n(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, static_cast<int64_t>(dims.size()), dims.data())
        .set_n(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, static_cast<int64_t>(strides.size()), strides.data())
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual)
        .set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, by_value);
    t.finalize();
    return t;
  }
  int64_t next_uid() { return next_virtual_++; }
  // The by-value softmax scale, one descriptor however many ops use it.
  const Desc& scale() {
    if (scale_ == nullptr) scale_ = &tensor(kScale, {1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, true);
    return *scale_;
  }
  const Desc& virt(const Dims& dims, cudnnDataType_t type = CUDNN_DATA_FLOAT) {
    return tensor(next_virtual_++, dims, packed(dims), type);
  }

  void matmul(const Desc& a, const Desc& b, const Desc& c) {
    auto& mm = own(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    mm.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    mm.finalize();
    auto& op = own(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.desc(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a).desc(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b)
        .desc(CUDNN_ATTR_OPERATION_MATMUL_CDESC, c).desc(CUDNN_ATTR_OPERATION_MATMUL_DESC, mm);
    op.finalize();
    ops_.push_back(op.get());
  }
  // y = mode(x [, b] [, t]); GEN_INDEX takes `axis`.
  void pointwise(cudnnPointwiseMode_t mode, const Desc& x, const Desc* b, const Desc& y, const Desc* t = nullptr,
                 int64_t axis = -1) {
    auto& pw = own(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode)
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    if (axis >= 0) pw.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, axis);
    pw.finalize();
    auto& op = own(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.desc(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pw).desc(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x);
    if (b != nullptr) op.desc(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b);
    if (t != nullptr) op.desc(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, *t);
    op.desc(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y);
    op.finalize();
    ops_.push_back(op.get());
  }
  void reduce(cudnnReduceTensorOp_t mode, const Desc& x, const Desc& y) {
    auto& r = own(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    r.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, mode)
        .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, CUDNN_DATA_FLOAT);
    r.finalize();
    auto& op = own(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    op.desc(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, x).desc(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, y)
        .desc(CUDNN_ATTR_OPERATION_REDUCTION_DESC, r);
    op.finalize();
    ops_.push_back(op.get());
  }
  void reshape(const Desc& x, const Desc& y) {
    auto& op = own(CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR);
    op.desc(CUDNN_ATTR_OPERATION_RESHAPE_XDESC, x).desc(CUDNN_ATTR_OPERATION_RESHAPE_YDESC, y);
    op.finalize();
    ops_.push_back(op.get());
  }

  // Scaled, causally masked scores S [b,1,q,k] from Q and Kᵀ.
  const Desc& scores(const Desc& q, const Desc& kt, const Dims& sdims, bool causal) {
    const Desc& s = virt(sdims);
    matmul(q, kt, s);
    const Desc& scaled = virt(sdims);
    pointwise(CUDNN_POINTWISE_MUL, s, &scale(), scaled);
    if (!causal) return scaled;
    const Desc& row = virt(sdims, CUDNN_DATA_INT32);
    const Desc& col = virt(sdims, CUDNN_DATA_INT32);
    pointwise(CUDNN_POINTWISE_GEN_INDEX, scaled, nullptr, row, nullptr, 2);
    pointwise(CUDNN_POINTWISE_GEN_INDEX, scaled, nullptr, col, nullptr, 3);
    const Desc& keep = virt(sdims, CUDNN_DATA_BOOLEAN);
    pointwise(CUDNN_POINTWISE_CMP_GE, row, &col, keep);
    const Desc& neg = tensor(kNegInf, {1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, true);
    const Desc& masked = virt(sdims);
    pointwise(CUDNN_POINTWISE_BINARY_SELECT, scaled, &neg, masked, &keep);
    return masked;
  }

  // Finalizes the graph and the first heuristic engine configuration that builds a plan.
  void build(cudnnHandle_t handle) {
    auto& graph = own(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, handle)
        .set_n(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(ops_.size()), ops_.data());
    graph.finalize();
    auto& heur = own(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    heur.desc(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph).set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, CUDNN_HEUR_MODE_A);
    heur.finalize();
    int64_t count = 0;
    PLANSIM_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                           &count, nullptr));
    std::vector<std::unique_ptr<Desc>> configs;
    std::vector<cudnnBackendDescriptor_t> raw;
    for (int64_t i = 0; i < count; ++i) {
      configs.push_back(std::make_unique<Desc>(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR));
      raw.push_back(configs.back()->get());
    }
    int64_t got = 0;
    if (count > 0)
      PLANSIM_CUDNN(cudnnBackendGetAttribute(heur.get(), CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                             count, &got, raw.data()));
    cudnnStatus_t last = CUDNN_STATUS_NOT_SUPPORTED;
    for (int64_t i = 0; i < got; ++i) {
      plan_ = std::make_unique<Desc>(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      plan_->set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, handle);
      cudnnBackendDescriptor_t cfg = raw[static_cast<size_t>(i)];
      plan_->set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, cfg);
      last = cudnnBackendFinalize(plan_->get());
      if (last == CUDNN_STATUS_SUCCESS) {
        int64_t n = 0;
        PLANSIM_CUDNN(cudnnBackendGetAttribute(plan_->get(), CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64,
                                               1, &n, &workspace_));
        return;
      }
    }
    plan_.reset();
    throw GpuError("cuDNN", static_cast<int>(last), cudnnGetErrorString(last),
                   "no engine of cuDNN's heuristics finalizes this attention graph", __FILE__, __LINE__);
  }

  void run(cudnnHandle_t handle, const std::vector<int64_t>& uids, const std::vector<void*>& ptrs, void* workspace,
           cudaStream_t stream) const {
    PLANSIM_CUDNN(cudnnSetStream(handle, stream));
    Desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    pack.set_n(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(uids.size()), uids.data())
        .set_n(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(ptrs.size()), ptrs.data())
        .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, workspace);
    pack.finalize();
    PLANSIM_CUDNN(cudnnBackendExecute(handle, plan_->get(), pack.get()));
  }

  [[nodiscard]] int64_t workspace() const { return workspace_; }
  [[nodiscard]] cudnnDataType_t io() const { return io_; }

 private:
  Desc& own(cudnnBackendDescriptorType_t type) {
    owned_.push_back(std::make_unique<Desc>(type));
    return *owned_.back();
  }
  cudnnDataType_t io_;
  int64_t next_virtual_ = kFirstVirtual;
  std::vector<std::unique_ptr<Desc>> owned_;
  std::vector<cudnnBackendDescriptor_t> ops_;
  std::unique_ptr<Desc> plan_;
  const Desc* scale_ = nullptr;
  int64_t workspace_ = 0;
};

}  // namespace

struct CudnnSdpa::Impl {
  SdpaShape shape;
  Graph graph;
  float scale = 1, neg_inf = std::numeric_limits<float>::lowest();
  explicit Impl(cudnnDataType_t io) : graph(io) {}
};

CudnnSdpa::CudnnSdpa(void* handle, const SdpaShape& sh, GemmDtype dtype) {
  if (dtype != GemmDtype::kBf16 && dtype != GemmDtype::kFp16)
    throw std::invalid_argument("the fused attention runs in bf16 or fp16 (fp8/fp32 models: bf16 attention)");
  impl_ = std::make_unique<Impl>(dtype == GemmDtype::kFp16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16);
  impl_->shape = sh;
  impl_->scale = 1.0f / std::sqrt(static_cast<float>(sh.head_dim));
  Graph& g = impl_->graph;
  const cudnnDataType_t io = g.io();
  const int64_t b = sh.batch, q = sh.queries, k = sh.keys, d = sh.head_dim;
  const Dims qd{b, 1, q, d}, kd{b, 1, k, d}, sd{b, 1, q, k}, rd{b, 1, q, 1};
  const Desc& Q = g.tensor(kQ, qd, packed(qd), io);
  const Desc& Kt = g.tensor(kKt, swap_last(kd), swap_last(packed(kd)), io);  // K's memory viewed as [b,1,d,k]
  const Desc& S = g.scores(Q, Kt, sd, sh.causal);
  const Desc& stats = g.tensor(kStats, rd, packed(rd), CUDNN_DATA_FLOAT);
  if (!sh.backward) {
    const Desc& V = g.tensor(kV, kd, packed(kd), io);
    const Desc& O = g.tensor(kO, qd, packed(qd), io);
    const Desc& mx = g.virt(rd);
    g.reduce(CUDNN_REDUCE_TENSOR_MAX, S, mx);
    const Desc& shifted = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_SUB, S, &mx, shifted);
    const Desc& e = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, e);
    const Desc& sum = g.virt(rd);
    g.reduce(CUDNN_REDUCE_TENSOR_ADD, e, sum);
    const Desc& log_sum = g.virt(rd);
    g.pointwise(CUDNN_POINTWISE_LOG, sum, nullptr, log_sum);
    g.pointwise(CUDNN_POINTWISE_ADD, mx, &log_sum, stats);
    const Desc& P = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_DIV, e, &sum, P);
    g.matmul(P, V, O);
  } else {
    const Desc& K = g.tensor(kK, kd, packed(kd), io);
    const Desc& Vt = g.tensor(kVt, swap_last(kd), swap_last(packed(kd)), io);
    const Desc& O = g.tensor(kO, qd, packed(qd), io);
    const Desc& dO = g.tensor(kDO, qd, packed(qd), io);
    const Desc& dQ = g.tensor(kDQ, qd, packed(qd), io);
    const Desc& dK = g.tensor(kDK, kd, packed(kd), io);
    const Desc& dV = g.tensor(kDV, kd, packed(kd), io);
    // P from the forward's statistics.
    const Desc& shifted = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_SUB, S, &stats, shifted);
    const Desc& P = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_EXP, shifted, nullptr, P);
    // dV = Pᵀ·dO.
    const Desc& Pt = g.tensor(g.next_uid(), swap_last(sd), swap_last(packed(sd)), CUDNN_DATA_FLOAT);
    g.reshape(P, Pt);
    g.matmul(Pt, dO, dV);
    // dS = P ∘ (dO·Vᵀ − rowsum(dO ∘ O)) · scale.
    const Desc& dP = g.virt(sd);
    g.matmul(dO, Vt, dP);
    const Desc& prod = g.virt(qd);
    g.pointwise(CUDNN_POINTWISE_MUL, dO, &O, prod);
    const Desc& dot = g.virt(rd);
    g.reduce(CUDNN_REDUCE_TENSOR_ADD, prod, dot);
    const Desc& diff = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_SUB, dP, &dot, diff);
    const Desc& dS0 = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_MUL, P, &diff, dS0);
    const Desc& dS = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_MUL, dS0, &g.scale(), dS);
    // dQ = dS·K, dK = dSᵀ·Q.
    g.matmul(dS, K, dQ);
    const Desc& dSt = g.tensor(g.next_uid(), swap_last(sd), swap_last(packed(sd)), CUDNN_DATA_FLOAT);
    g.reshape(dS, dSt);
    g.matmul(dSt, Q, dK);
  }
  g.build(static_cast<cudnnHandle_t>(handle));
}

CudnnSdpa::~CudnnSdpa() = default;

std::size_t CudnnSdpa::workspace_bytes() const { return static_cast<std::size_t>(impl_->graph.workspace()); }

void CudnnSdpa::run(void* handle, const SdpaBuffers& b, void* workspace, cudaStream_t stream) const {
  auto* scale = const_cast<float*>(&impl_->scale);
  auto* neg = const_cast<float*>(&impl_->neg_inf);
  std::vector<int64_t> uids{kQ, kKt, kStats, kScale};
  std::vector<void*> ptrs{b.q, b.k, b.stats, scale};
  if (impl_->shape.causal) {
    uids.push_back(kNegInf);
    ptrs.push_back(neg);
  }
  if (!impl_->shape.backward) {
    uids.insert(uids.end(), {kV, kO});
    ptrs.insert(ptrs.end(), {b.v, b.o});
  } else {
    uids.insert(uids.end(), {kK, kVt, kO, kDO, kDQ, kDK, kDV});
    ptrs.insert(ptrs.end(), {b.k, b.v, b.o, b.d_o, b.dq, b.dk, b.dv});
  }
  impl_->graph.run(static_cast<cudnnHandle_t>(handle), uids, ptrs, workspace, stream);
}

void* cudnn_create_handle() {
  cudnnHandle_t h = nullptr;
  PLANSIM_CUDNN(cudnnCreate(&h));
  return h;
}

void cudnn_destroy_handle(void* handle) {
  if (handle != nullptr) cudnnDestroy(static_cast<cudnnHandle_t>(handle));
}

std::size_t cudnn_version() { return cudnnGetVersion(); }

}  // namespace plansim::hw
