// RankBuilder emits one rank's program (its compute ops, collectives, sends and receives, and their
// dependencies) in the order its pipeline schedule runs them; compile_plan (plan_compiler.cpp) runs one
// per simulated rank. Internal to sim/plan, in three parts: rank_builder.cpp (the groups a rank belongs
// to, its parameters, the step's order and its end: gradient clipping, optimizer), rank_builder_layers.cpp
// (forward and backward passes with their TP, CP and EP collectives and the pipeline sends) and
// rank_builder_grads.cpp (data-parallel gradient buckets, ZeRO-1/2 parameter gathers, DualPipe pairs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "sim/plan/finetune.hpp"
#include "sim/plan/grad_buckets.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/plan/plan_compiler.hpp"
#include "sim/plan/plan_costs.hpp"
#include "sim/plan/rank_mapping.hpp"
#include "sim/plan/tp_overlap.hpp"
#include "sim/sched/holding.hpp"

namespace plansim::rank_build {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr int kEmbedding = -1;
constexpr int kOutput = -2;

// Deduplicates groups by member list, so every rank of a group refers to the same id.
class GroupTable {
 public:
  explicit GroupTable(std::vector<Group>& out) : out_(&out) {}
  uint32_t id(Dim d, const std::vector<int>& ranks) {
    std::vector<uint32_t> r(ranks.begin(), ranks.end());
    auto key = std::make_pair(static_cast<int>(d), r);
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    out_->push_back(Group{d, std::move(r)});
    const auto id = static_cast<uint32_t>(out_->size() - 1);
    index_.emplace(std::move(key), id);
    return id;
  }

 private:
  std::vector<Group>* out_;
  std::map<std::pair<int, std::vector<uint32_t>>, uint32_t> index_;
};

struct Context {
  const Scenario* s;
  const RankMapping* map;
  CostTable* costs;
  GroupTable* groups;
  const StageOrders* orders;
  const PipelineLayout* lay;
  const LayerPartition* layers;
  bool split;
  int nvs;
  double act_bytes, pp_bytes, kv_bytes, a2a_bytes;
  double token_bytes;  // one micro-batch's tokens on a rank, hidden states (the hierarchical dispatcher's unit)
};


class RankBuilder {
 public:
  RankBuilder(const Context& c, Program& p);
  void build();

 private:
  // ---- emission helpers ----
  uint32_t emit(ProgramOp op, std::initializer_list<uint32_t> deps) {
    op.dep_begin = static_cast<uint32_t>(p_.deps.size());
    const uint32_t tp_join = op.kind == OpKind::compute || op.kind == OpKind::send ? tp_ov_.take() : kNone;
    for (uint32_t d : deps)
      if (d != kNone && std::find(p_.deps.begin() + op.dep_begin, p_.deps.end(), d) == p_.deps.end())
        p_.deps.push_back(d);
    if (tp_join != kNone && std::find(p_.deps.begin() + op.dep_begin, p_.deps.end(), tp_join) == p_.deps.end())
      p_.deps.push_back(tp_join);
    op.dep_count = static_cast<uint32_t>(p_.deps.size()) - op.dep_begin;
    if (op.micro_batch >= 0) op.chunk = chunk_;
    p_.ops.push_back(op);
    return static_cast<uint32_t>(p_.ops.size() - 1);
  }
  uint32_t compute(uint32_t cost, Phase ph, int mb, bool recompute, std::initializer_list<uint32_t> deps) {
    ProgramOp op;
    op.kind = OpKind::compute;
    op.cost = cost;
    op.phase = ph;
    op.micro_batch = mb;
    op.recompute = recompute;
    return last_compute_ = emit(op, deps);
  }
  uint32_t coll(StreamKind st, CommOp cm, uint32_t group, double bytes, Phase ph, int mb,
                std::initializer_list<uint32_t> deps) {
    ProgramOp op;
    op.kind = OpKind::collective;
    op.stream = st;
    op.comm = cm;
    op.group = group;
    op.seq = seq_[group]++;
    op.bytes = bytes;
    op.phase = ph;
    op.micro_batch = mb;
    return emit(op, deps);
  }
  // Activation offload: one layer's saved activations over the host link, out (StreamKind::d2h) or back
  // (StreamKind::h2d) on the copy engines.
  uint32_t host_copy(StreamKind st, double bytes, Phase ph, int mb, std::initializer_list<uint32_t> deps) {
    ProgramOp op;
    op.kind = OpKind::host_copy;
    op.stream = st;
    op.cost = c_.costs->host_copy(bytes, st == StreamKind::d2h);
    op.bytes = bytes;
    op.phase = ph;
    op.micro_batch = mb;
    return emit(op, deps);
  }
  uint32_t p2p(OpKind k, int peer, uint32_t tag, Phase ph, int mb, std::initializer_list<uint32_t> deps) {
    ProgramOp op;
    op.kind = k;
    op.stream = StreamKind::pp_comm;
    op.comm = CommOp::send_recv;
    op.peer = static_cast<uint32_t>(peer);
    op.tag = tag;
    op.bytes = c_.pp_bytes;
    op.phase = ph;
    op.micro_batch = mb;
    return emit(op, deps);
  }

  // ---- structure ----
  // The data-parallel gradient group: the ranks holding the same parameters. With the mirrored
  // (DualPipe) layout stage s and stage p−1−s hold the same two pieces, so their DP groups join,
  // the lower stage's first (both mirrors must name the same member order).
  [[nodiscard]] std::vector<int> data_parallel_members(int r) const;
  [[nodiscard]] int vstage(int chunk) const { return c_.lay->piece(p_.stage, chunk); }
  [[nodiscard]] int first_layer(int chunk) const { return c_.layers->first(vstage(chunk)); }
  [[nodiscard]] int end_layer(int chunk) const { return first_layer(chunk) + c_.layers->count(vstage(chunk)); }
  // The rank holding piece `vs` on the path of the micro-batches that `chunk` processes.
  [[nodiscard]] int rank_of_vstage(int vs, int chunk) const {
    RankCoords c = coords_;
    c[Dim::pp] = c_.lay->holder(vs, c_.lay->lane_of_chunk(chunk)).stage;
    return c_.map->rank(c);
  }
  // First / last micro-batch that passes through the chunks of micro-batch mb's lane.
  [[nodiscard]] bool first_mb(int mb) const { return mb == c_.lay->lane_first(c_.lay->lane_of_micro_batch(mb)); }
  [[nodiscard]] bool last_mb(int mb) const {
    return mb == c_.lay->lane_first(c_.lay->lane_of_micro_batch(mb)) + c_.lay->lane_count() - 1;
  }
  // This rank's chunks in ascending piece (layer) order.
  [[nodiscard]] std::vector<int> chunks_in_layer_order() const;
  [[nodiscard]] bool is_moe(int l) const { return s_.model.is_moe_layer(l); }
  // Layer l's weights on this rank (LoRA adapters included) and the trained ones among them
  // (fine-tuning: gradients, optimizer step, DP reduction and ZeRO-1/2 gathers cover only those).
  [[nodiscard]] double base_params(int l) const {
    return is_moe(l) ? moe_dense_params_ + moe_expert_params_ : dense_layer_params_;
  }
  [[nodiscard]] double layer_params(int l) const { return base_params(l) + adapter_params_; }
  [[nodiscard]] double trained_params(int l) const {
    return (layer_base_trained(s_, l) ? base_params(l) : 0) + adapter_params_;
  }
  [[nodiscard]] double trained_embedding() const { return embedding_trained(s_) ? emb_params_ : 0; }
  [[nodiscard]] double trained_output() const { return output_trained(s_) ? out_params_ : 0; }
  [[nodiscard]] double local_params() const;
  [[nodiscard]] uint32_t tag(int mb, int boundary_vs, int dir) const {
    return static_cast<uint32_t>(((mb * c_.nvs) + boundary_vs) * 2 + dir);
  }

  // A block's compute ops (plan/tp_overlap.hpp): `core` holds its kernels other than the paired GEMMs
  // (all of them when the block is one op), `last` is its last op, `paired_from` the op after which
  // its last GEMM and the collective after the block start together (kNone: no GEMM pairs with it).
  struct BlockOps {
    uint32_t core = kNone, paired_from = kNone, last = kNone;
  };
  static BlockOps whole(uint32_t op) { return BlockOps{op, kNone, op}; }
  // A cut block, in two calls around what the caller puts between them (selective recompute): the
  // GEMM beside the pending all-gather (the next compute op waits for both), then the rest and the
  // GEMM beside the collective after the block.
  uint32_t split_before(const TpSplit& sp, Phase ph, int mb, bool recompute, std::initializer_list<uint32_t> deps);
  BlockOps split_rest(const TpSplit& sp, Phase ph, int mb, bool recompute, std::initializer_list<uint32_t> deps);
  // TP collective after a block (forward or backward); returns what the next block depends on.
  // Overlapped where a GEMM pairs with it: it runs beside that GEMM and the rank's next kernel waits for it.
  uint32_t tp_after(const BlockOps& block, Phase ph, int mb);
  // Whether a layer's MLP block is wrapped in TP collectives: not an MoE block whose experts fold
  // (ParallelSpec::expert_tp: it runs on the rank's sequence shard, its EP all-to-all instead).
  [[nodiscard]] bool mlp_tp_comm(bool moe) const { return !(moe && s_.parallel.experts_folded()); }
  // TP all-gather before a block (sequence parallel); `paired`: the block's first GEMM runs beside it
  // (split_before joins it), else the block waits for it.
  uint32_t tp_before(uint32_t dep, Phase ph, int mb, bool paired);
  // The MoE block's token exchange before (`to_experts`) or after its expert compute (plan/ep_dispatch.hpp):
  // one all-to-all over the EP group, or the hierarchical dispatcher's across-server then within-server
  // pair (the combine: within, then across).
  uint32_t ep_exchange(uint32_t dep, Phase ph, int mb, bool to_experts);
  // ZeRO-3: gather layer l's parameters, at most one layer ahead of the compute stream.
  uint32_t zero3_gather(int l, Phase ph, int mb);
  // `wait`: one more op the layer's first compute waits for (kNone: none): activation offload's copy of
  // the layer two before it (forward) or its own reload (backward).
  uint32_t layer_forward(int l, int mb, uint32_t in, Phase ph, bool recompute, uint32_t wait = kNone);
  // selective_op recompute before layer l's backward (after its ZeRO-3 gather `gather`): the attention
  // block's re-run kernels, then the MLP block's, each after the TP all-gather it needs under sequence
  // parallelism (the saved outputs do not include it); without sequence parallelism the all-reduce
  // after the attention block, which is not saved either.
  uint32_t op_sac_recompute(int l, int mb, uint32_t in, uint32_t gather, uint32_t wait);

  // Fine-tuning (finetune.hpp): a block without backward ops is skipped with its collectives; the
  // TP reduction of a block's input gradient only where something below needs it. The MLP block has a
  // backward whenever the attention block does (its input gradient feeds it).
  uint32_t layer_backward(int l, int mb, uint32_t in, BackwardPart part, uint32_t wait = kNone);
  // Activation offload (TrainingSpec::activation_offload_layers): the chunk's first min(N, k − 1) of its
  // k layers are offloaded; the bytes of layer l's saved activations on this rank.
  [[nodiscard]] int offloaded_layers(int chunk) const;
  [[nodiscard]] double offload_bytes(int l) const;
  void forward(int mb, int chunk);
  void backward(int mb, int chunk, bool with_weight);

  // DualPipe's F&B pair: alternate the two passes' ops (plan/pair_interleave.hpp) and follow the
  // op indices this builder keeps.
  void interleave(uint32_t first, uint32_t mid);
  void weight_grads(int mb, int chunk);

  // ---- data parallelism ----
  // Gradients of layer l (kEmbedding / kOutput: this stage's embedding / output layer) are ready
  // after op `producer`. The mirrored layout's canonical order (GradBuckets): the later piece first,
  // last layer first, the output layer before it and the embedding after it; both mirrors finish
  // the lower piece last, so the first buckets still overlap the remaining backward.
  void add_grads(int l, uint32_t producer);
  // One bucket's reduction on the DP stream (ZeRO: reduce-scatter, else all-reduce).
  GradBuckets::Reduce reduce_grads();
  [[nodiscard]] int piece_of_layer(int l) const;

  // ZeRO-1/2: all-gather the updated (trained) parameters in buckets, in forward layer order.
  void gather_all_params(uint32_t after);

  const Context& c_;
  Program& p_;
  const Scenario& s_;
  RankCoords coords_;
  uint32_t tp_ = 0, cp_ = 0, ep_ = 0, dp_ = 0, mp_ = 0;  // expert gradients ride in the dense DP buckets
  uint32_t ep_across_ = kNone, ep_within_ = kNone;        // hierarchical dispatcher's groups (kNone: flat)
  double ep_across_bytes_ = 0;
  int dp_size_ = 1;
  std::map<uint32_t, uint32_t> seq_;
  double dense_layer_params_ = 0, moe_dense_params_ = 0, moe_expert_params_ = 0, emb_params_ = 0, out_params_ = 0;
  double adapter_params_ = 0;  // LoRA adapters per layer on this rank
  uint32_t last_compute_ = kNone, prev_compute_ = kNone, last_dp_ = kNone;
  TpOverlapState tp_ov_;
  uint16_t chunk_ = 0;  // the chunk of the schedule op being emitted
  GradBuckets grads_;
  std::vector<uint32_t> param_gather_;
  // Per (micro-batch, chunk) whose forward ran: the offload op of each of its offloaded layers, in layer
  // order, until its backward reloads them.
  std::map<std::pair<int, int>, std::vector<uint32_t>> offloads_;
};

}  // namespace plansim::rank_build
