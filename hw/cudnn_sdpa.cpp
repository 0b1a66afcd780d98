#include "hw/cudnn_sdpa.hpp"

#include <cudnn.h>
#include <fmt/format.h>

#include <cmath>
#include <iterator>
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

// How the graph spells the two details cuDNN's fused-attention engines match on, tried in order until one
// finalizes (cuDNN's support surface moves between versions; which one ran is recorded: lowering_name()).
// The first is cuDNN frontend's own composite lowering (include/cudnn_frontend/node/
// scaled_dot_product_flash_attention.h, softmax.h, diagonal_band_mask.h): the products that read the
// softmax's P (and, backward, dS) take them in the I/O type ("a requirement by the cudnn backend to take in
// bmm2 aType as i/o type"), and the causal comparison computes in BOOLEAN.
struct Lowering {
  const char* name;
  bool io_typed_probabilities;  // P, Pᵀ, dS, dSᵀ in the I/O type where a matmul reads them (else fp32)
  bool boolean_compare;         // CMP_GE's math precision BOOLEAN (else fp32)
  // The batch·heads calls as [1, B, s, d] (one sequence of B heads, as frameworks pass [b, h, s, d] with
  // many heads) rather than [B, 1, s, d]: the same memory, labelled as cuDNN's engines are tuned for.
  bool heads_in_dim1;
};
constexpr Lowering kLowerings[] = {
    {"frontend composite, [1, B, s, d]", true, true, true},
    {"frontend composite, [B, 1, s, d]", true, true, false},
    {"I/O-typed P and dS, fp32 mask compare", true, false, false},
    {"fp32 P and dS, boolean mask compare", false, true, false},
    {"fp32 P and dS, fp32 mask compare", false, false, false},
};

// UIDs of the graph's real tensors (bound in the variant pack); virtual ones count up from kFirstVirtual.
// The backward's two fp32 tensors in the workspace (kSoftmaxSum, kDQAccum) are real tensors, as cuDNN's
// backward engines expect: rowsum(dO∘O) and dQ accumulated in fp32, then copied to dQ (IDENTITY).
enum Uid : int64_t {
  kQ = 1, kKt, kV, kVt, kO, kStats, kScale, kNegInf, kOne, kDO, kDQ, kDK, kDV, kSoftmaxSum, kDQAccum,
  kFirstVirtual = 100
};

class Graph {
 public:
  Graph(cudnnDataType_t io, const Lowering& lowering) : io_(io), lowering_(lowering) {}

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
                 int64_t axis = -1, cudnnDataType_t precision = CUDNN_DATA_FLOAT) {
    auto& pw = own(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode)
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, precision);
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

  // A by-value fp32 scalar (the softmax scale, the mask's fill, 1), one descriptor per UID.
  const Desc& scalar(int64_t uid) {
    for (const auto& [id, d] : scalars_)
      if (id == uid) return *d;
    scalars_.emplace_back(uid, &tensor(uid, {1, 1, 1, 1}, {1, 1, 1, 1}, CUDNN_DATA_FLOAT, true));
    return *scalars_.back().second;
  }
  // S·scale [b,1,q,k] from Q and Kᵀ.
  const Desc& scaled_scores(const Desc& q, const Desc& kt, const Dims& sdims) {
    const Desc& s = virt(sdims);
    matmul(q, kt, s);
    const Desc& scaled = virt(sdims);
    pointwise(CUDNN_POINTWISE_MUL, s, &scalar(kScale), scaled);
    return scaled;
  }
  // x where row >= column, else the lowest float (GEN_INDEX on x's rows and columns, CMP_GE, BINARY_SELECT).
  const Desc& causal_mask(const Desc& x, const Dims& sdims) {
    const Desc& row = virt(sdims, CUDNN_DATA_INT32);
    const Desc& col = virt(sdims, CUDNN_DATA_INT32);
    pointwise(CUDNN_POINTWISE_GEN_INDEX, x, nullptr, row, nullptr, 2);
    pointwise(CUDNN_POINTWISE_GEN_INDEX, x, nullptr, col, nullptr, 3);
    const Desc& keep = virt(sdims, CUDNN_DATA_BOOLEAN);
    pointwise(CUDNN_POINTWISE_CMP_GE, row, &col, keep, nullptr, -1,
              lowering_.boolean_compare ? CUDNN_DATA_BOOLEAN : CUDNN_DATA_FLOAT);
    const Desc& masked = virt(sdims);
    pointwise(CUDNN_POINTWISE_BINARY_SELECT, x, &scalar(kNegInf), masked, &keep);
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
  [[nodiscard]] bool heads_in_dim1() const { return lowering_.heads_in_dim1; }
  // The type of P and dS where a product reads them.
  [[nodiscard]] cudnnDataType_t probabilities() const {
    return lowering_.io_typed_probabilities ? io_ : CUDNN_DATA_FLOAT;
  }

 private:
  Desc& own(cudnnBackendDescriptorType_t type) {
    owned_.push_back(std::make_unique<Desc>(type));
    return *owned_.back();
  }
  cudnnDataType_t io_;
  Lowering lowering_;
  int64_t next_virtual_ = kFirstVirtual;
  std::vector<std::unique_ptr<Desc>> owned_;
  std::vector<cudnnBackendDescriptor_t> ops_;
  std::unique_ptr<Desc> plan_;
  std::vector<std::pair<int64_t, const Desc*>> scalars_;
  int64_t workspace_ = 0;
};

}  // namespace

struct CudnnSdpa::Impl {
  SdpaShape shape;
  Graph graph;
  const char* lowering = "";
  float scale = 1, neg_inf = std::numeric_limits<float>::lowest(), one = 1;
  Impl(cudnnDataType_t io, const Lowering& l) : graph(io, l), lowering(l.name) {}
};

namespace {

// Declares the forward or backward graph of `sh` on `g` and builds its plan (throws GpuError if none).
void build_sdpa(Graph& g, const SdpaShape& sh, cudnnHandle_t handle) {
  const cudnnDataType_t io = g.io();
  const int64_t b = sh.batch, q = sh.queries, k = sh.keys, d = sh.head_dim;
  const int64_t outer = g.heads_in_dim1() ? 1 : b, heads = g.heads_in_dim1() ? b : 1;
  const Dims qd{outer, heads, q, d}, kd{outer, heads, k, d}, sd{outer, heads, q, k}, rd{outer, heads, q, 1};
  const Desc& Q = g.tensor(kQ, qd, packed(qd), io);
  const Desc& Kt = g.tensor(kKt, swap_last(kd), swap_last(packed(kd)), io);  // K's memory viewed as [b,1,d,k]
  const Desc& stats = g.tensor(kStats, rd, packed(rd), CUDNN_DATA_FLOAT);
  const Desc& O = g.tensor(kO, qd, packed(qd), io);
  const Desc& scaled = g.scaled_scores(Q, Kt, sd);
  if (!sh.backward) {
    const Desc& S = sh.causal ? g.causal_mask(scaled, sd) : scaled;
    const Desc& V = g.tensor(kV, kd, packed(kd), io);
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
    const Desc& P = g.virt(sd, g.probabilities());
    g.pointwise(CUDNN_POINTWISE_DIV, e, &sum, P);
    g.matmul(P, V, O);
  } else {
    const Desc& Vt = g.tensor(kVt, swap_last(kd), swap_last(packed(kd)), io);
    const Desc& dO = g.tensor(kDO, qd, packed(qd), io);
    const Desc& dQ = g.tensor(kDQ, qd, packed(qd), io);
    const Desc& dK = g.tensor(kDK, kd, packed(kd), io);
    const Desc& dV = g.tensor(kDV, kd, packed(kd), io);
    // softmax_sum = rowsum(dO∘O), a real fp32 tensor.
    const Desc& prod = g.virt(qd);
    g.pointwise(CUDNN_POINTWISE_MUL, dO, &O, prod);
    const Desc& dot = g.virt(rd);
    g.reduce(CUDNN_REDUCE_TENSOR_ADD, prod, dot);
    const Desc& softmax_sum = g.tensor(kSoftmaxSum, rd, packed(rd), CUDNN_DATA_FLOAT);
    g.pointwise(CUDNN_POINTWISE_MUL, dot, &g.scalar(kOne), softmax_sum);
    // P = exp(S·scale − Stats), masked after the subtraction.
    const Desc& shifted = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_SUB, scaled, &stats, shifted);
    const Desc& P = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_EXP, sh.causal ? g.causal_mask(shifted, sd) : shifted, nullptr, P);
    // dV = Pᵀ·dO.
    const Desc& Pt = g.tensor(g.next_uid(), swap_last(sd), swap_last(packed(sd)), g.probabilities());
    g.reshape(P, Pt);
    g.matmul(Pt, dO, dV);
    // dS = (dO·Vᵀ − softmax_sum)∘P·scale.
    const Desc& dP = g.virt(sd);
    g.matmul(dO, Vt, dP);
    const Desc& diff = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_SUB, dP, &softmax_sum, diff);
    const Desc& dS0 = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_MUL, diff, &P, dS0);
    const Desc& dS = g.virt(sd);
    g.pointwise(CUDNN_POINTWISE_MUL, dS0, &g.scalar(kScale), dS);
    // dK = dSᵀ·Q.
    const Desc& dSt = g.tensor(g.next_uid(), swap_last(sd), swap_last(packed(sd)), g.probabilities());
    g.reshape(dS, dSt);
    g.matmul(dSt, Q, dK);
    // dQ = dS·K, accumulated in fp32 (K through RESHAPE of Kᵀ), then copied to dQ.
    const Desc& K = g.tensor(g.next_uid(), kd, packed(kd), io);
    g.reshape(Kt, K);
    const Desc& dq_accum = g.tensor(kDQAccum, qd, packed(qd), CUDNN_DATA_FLOAT);
    g.matmul(dS, K, dq_accum);
    g.pointwise(CUDNN_POINTWISE_IDENTITY, dq_accum, nullptr, dQ);
  }
  g.build(handle);
}

}  // namespace

CudnnSdpa::CudnnSdpa(void* handle, const SdpaShape& sh, GemmDtype dtype) {
  if (dtype != GemmDtype::kBf16 && dtype != GemmDtype::kFp16)
    throw std::invalid_argument("the fused attention runs in bf16 or fp16 (fp8/fp32 models: bf16 attention)");
  const cudnnDataType_t io = dtype == GemmDtype::kFp16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
  std::string tried;
  for (size_t i = 0; i < std::size(kLowerings); ++i) {
    const Lowering& l = kLowerings[i];
    auto impl = std::make_unique<Impl>(io, l);
    impl->shape = sh;
    impl->scale = 1.0f / std::sqrt(static_cast<float>(sh.head_dim));
    try {
      build_sdpa(impl->graph, sh, static_cast<cudnnHandle_t>(handle));
      impl_ = std::move(impl);
      return;
    } catch (const GpuError& e) {
      tried += fmt::format("{}{}: {}", tried.empty() ? "" : "; ", l.name, e.what());
    }
  }
  throw GpuError("cuDNN", static_cast<int>(CUDNN_STATUS_NOT_SUPPORTED), "no lowering of the attention graph builds",
                 tried.c_str(), __FILE__, __LINE__);
}

const char* CudnnSdpa::lowering_name() const { return impl_->lowering; }

CudnnSdpa::~CudnnSdpa() = default;

namespace {

constexpr std::size_t kWorkspaceAlign = 256;
std::size_t aligned(std::size_t n) { return (n + kWorkspaceAlign - 1) / kWorkspaceAlign * kWorkspaceAlign; }

// The workspace: the plan's own, then (backward) softmax_sum [b,1,q,1] and dQ_accum [b,1,q,d], fp32.
struct WorkspaceLayout {
  std::size_t softmax_sum = 0, dq_accum = 0, dq_accum_bytes = 0, total = 0;
};
WorkspaceLayout layout(const SdpaShape& sh, std::size_t plan_bytes) {
  WorkspaceLayout w;
  w.total = aligned(plan_bytes);
  if (!sh.backward) return w;
  const auto rows = static_cast<std::size_t>(sh.batch * sh.queries);
  w.softmax_sum = w.total;
  w.total += aligned(rows * sizeof(float));
  w.dq_accum = w.total;
  w.dq_accum_bytes = rows * static_cast<std::size_t>(sh.head_dim) * sizeof(float);
  w.total += aligned(w.dq_accum_bytes);
  return w;
}

}  // namespace

std::size_t CudnnSdpa::workspace_bytes() const {
  return layout(impl_->shape, static_cast<std::size_t>(impl_->graph.workspace())).total;
}

void CudnnSdpa::run(void* handle, const SdpaBuffers& b, void* workspace, cudaStream_t stream) const {
  auto* scale = const_cast<float*>(&impl_->scale);
  auto* neg = const_cast<float*>(&impl_->neg_inf);
  auto* one = const_cast<float*>(&impl_->one);
  std::vector<int64_t> uids{kQ, kKt, kStats, kScale, kO};
  std::vector<void*> ptrs{b.q, b.k, b.stats, scale, b.o};
  if (impl_->shape.causal) {
    uids.push_back(kNegInf);
    ptrs.push_back(neg);
  }
  if (!impl_->shape.backward) {
    uids.push_back(kV);
    ptrs.push_back(b.v);
  } else {
    const WorkspaceLayout w = layout(impl_->shape, static_cast<std::size_t>(impl_->graph.workspace()));
    auto* base = static_cast<unsigned char*>(workspace);
    // cuDNN before 9.6 expects dQ_accum zeroed by the caller (cudnn-frontend's workspace handling).
    if (cudnn_version() < 90600) PLANSIM_CUDA(cudaMemsetAsync(base + w.dq_accum, 0, w.dq_accum_bytes, stream));
    uids.insert(uids.end(), {kVt, kDO, kDQ, kDK, kDV, kOne, kSoftmaxSum, kDQAccum});
    ptrs.insert(ptrs.end(), {b.v, b.d_o, b.dq, b.dk, b.dv, one, base + w.softmax_sum, base + w.dq_accum});
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
