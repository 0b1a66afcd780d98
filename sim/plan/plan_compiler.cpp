#include "sim/plan/plan_compiler.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include "sim/core/assert.hpp"
#include "sim/model/memory.hpp"
#include "sim/plan/finetune.hpp"
#include "sim/plan/grad_buckets.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/plan/a2a_overlap.hpp"
#include "sim/plan/ep_dispatch.hpp"
#include "sim/plan/pair_interleave.hpp"
#include "sim/plan/plan_costs.hpp"
#include "sim/plan/rank_mapping.hpp"
#include "sim/plan/tp_overlap.hpp"
#include "sim/sched/registry.hpp"
#include "sim/sched/holding.hpp"

namespace plansim {
namespace {

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
  RankBuilder(const Context& c, Program& p)
      : c_(c), p_(p), s_(*c.s),
        grads_(c.s->training.grad_bucket.value(), c.s->training.overlap.grad_reduce, c.s->parallel.zero >= 3,
               c.lay->is_mirrored()) {
    const ParallelSpec& par = s_.parallel;
    const int r = static_cast<int>(p.rank);
    coords_ = c.map->coords(r);
    p.stage = coords_[Dim::pp];
    tp_ = c.groups->id(Dim::tp, c.map->group(r, {Dim::tp}));
    cp_ = c.groups->id(Dim::cp, c.map->group(r, {Dim::cp}));
    const std::vector<int> ep_members = c.map->group(r, {Dim::ep});
    ep_ = c.groups->id(Dim::ep, ep_members);
    if (par.ep_dispatcher == ParallelSpec::EpDispatcher::hierarchical && s_.model.moe && par.ep > 1) {
      const EpSplit split = split_ep_group(ep_members, r, par.node_gpus);
      if (!split.across.empty()) {
        ep_across_ = c.groups->id(Dim::ep, split.across);
        ep_within_ = c.groups->id(Dim::ep, split.within);
        // Each token once to every server holding one of its experts: the buffer of an all-to-all over
        // one rank per server, whose (n−1)/n part leaves this server.
        const auto servers = static_cast<int>(split.across.size());
        ep_across_bytes_ = c.token_bytes * expected_servers_hit(s_.model.moe->experts, s_.model.moe->top_k, servers);
      }
    }
    const std::vector<int> dp_members = data_parallel_members(r);
    dp_ = c.groups->id(Dim::dp, dp_members);
    dp_size_ = static_cast<int>(dp_members.size());
    mp_ = c.groups->id(Dim::pp, c.map->group(r, {Dim::cp, Dim::pp}));
    const ParamCount pc = count_parameters(s_.model);
    dense_layer_params_ = pc.per_dense_layer / par.tp;
    moe_dense_params_ = (pc.per_moe_layer - pc.expert_params_per_moe_layer) / par.tp;
    moe_expert_params_ = pc.expert_params_per_moe_layer / (par.tp * par.ep);
    adapter_params_ = adapter_params(s_.model, s_.training.finetune, 0, par.tp);
    // Embedding (the stage holding the first piece) and output layer + final norm (the last piece),
    // each this rank's share.
    if (c.lay->holds(p.stage, 0)) emb_params_ = pc.embedding / par.tp;
    if (c.lay->holds(p.stage, c.nvs - 1)) out_params_ = stage_parameters(s_, 0, 0, false, true).dense;
  }

  void build() {
    const ParallelSpec& par = s_.parallel;
    if (par.zero >= 1 && par.zero <= 2 && dp_size_ > 1 && s_.training.overlap.param_gather) gather_all_params(kNone);
    const auto& order = (*c_.orders)[static_cast<size_t>(p_.stage)];
    for (size_t i = 0; i < order.size(); ++i) {
      const SchedOp& op = order[i];
      chunk_ = static_cast<uint16_t>(op.chunk);
      if (op.phase == Phase::W) {
        weight_grads(op.micro_batch, op.chunk);
      } else if (op.phase == Phase::F) {
        const auto first = static_cast<uint32_t>(p_.ops.size());
        forward(op.micro_batch, op.chunk);
        if (op.paired) {  // DualPipe's overlapped F&B chunk pair
          const auto mid = static_cast<uint32_t>(p_.ops.size());
          const SchedOp& b = order[++i];
          chunk_ = static_cast<uint16_t>(b.chunk);
          backward(b.micro_batch, b.chunk, b.with_weight);
          interleave(first, mid);
        }
      } else {
        backward(op.micro_batch, op.chunk, op.with_weight);
      }
    }
    last_dp_ = grads_.finish(last_compute_, reduce_grads());
    // Gradient clipping: the global gradient norm is all-reduced over the model-parallel ranks
    // (Megatron), so no stage starts its optimizer step before every stage's backward is done.
    // Modelled over the pp·cp ranks of this TP rank (the TP part of the 8-byte reduction is
    // negligible and keeping it off the TP links keeps TP memoisation exact).
    uint32_t norm = kNone;
    if (par.pp * par.cp > 1)
      norm = coll(StreamKind::pp_comm, CommOp::all_reduce, mp_, 8, Phase::W, -1, {last_dp_, last_compute_});
    const double local = local_params() / (par.zero >= 1 ? dp_size_ : 1);
    if (local > 0)  // a stage of frozen layers only (frozen_layers) has nothing to update
      last_compute_ = compute(c_.costs->optimizer(local), Phase::W, -1, false, {last_dp_, last_compute_, norm});
    if (par.zero >= 1 && par.zero <= 2 && dp_size_ > 1 && !s_.training.overlap.param_gather) gather_all_params(last_compute_);
  }

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
  [[nodiscard]] std::vector<int> data_parallel_members(int r) const {
    std::vector<int> members = c_.map->group(r, {Dim::ep, Dim::dp});
    if (!c_.lay->is_mirrored()) return members;
    RankCoords m = coords_;
    m[Dim::pp] = s_.parallel.pp - 1 - coords_[Dim::pp];
    std::vector<int> mirror = c_.map->group(c_.map->rank(m), {Dim::ep, Dim::dp});
    if (m[Dim::pp] < coords_[Dim::pp]) std::swap(members, mirror);
    members.insert(members.end(), mirror.begin(), mirror.end());
    return members;
  }
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
  [[nodiscard]] std::vector<int> chunks_in_layer_order() const {
    std::vector<int> c(static_cast<size_t>(c_.lay->chunks()));
    for (int i = 0; i < c_.lay->chunks(); ++i) c[static_cast<size_t>(i)] = i;
    std::sort(c.begin(), c.end(), [&](int a, int b) { return vstage(a) < vstage(b); });
    return c;
  }
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
  [[nodiscard]] double local_params() const {
    double n = trained_embedding() + trained_output();
    for (int c = 0; c < c_.lay->chunks(); ++c)
      for (int l = first_layer(c); l < end_layer(c); ++l) n += trained_params(l);
    return n;
  }
  [[nodiscard]] uint32_t tag(int mb, int boundary_vs, int dir) const {
    return static_cast<uint32_t>(((mb * c_.nvs) + boundary_vs) * 2 + dir);
  }

  // TP collective after a block (forward or backward); returns what the next block depends on.
  // Overlapped (plan/tp_overlap.hpp): it runs beside the block and the rank's next kernel waits for it.
  uint32_t tp_after(uint32_t block, Phase ph, int mb) {
    if (s_.parallel.tp == 1) return block;
    const CommOp op = s_.parallel.sequence_parallel ? CommOp::reduce_scatter : CommOp::all_reduce;
    const bool ov = s_.training.overlap.tp_comm;
    uint32_t c = coll(StreamKind::tp_comm, op, tp_, c_.act_bytes, ph, mb, {ov ? tp_ov_.block_in : block});
    if (ov) tp_ov_.join = c;
    return ov ? block : c;
  }
  uint32_t tp_before(uint32_t dep, Phase ph, int mb) {
    tp_ov_.block_in = dep;
    if (s_.parallel.tp == 1 || !s_.parallel.sequence_parallel) return dep;
    uint32_t c = coll(StreamKind::tp_comm, CommOp::all_gather, tp_, c_.act_bytes, ph, mb, {dep});
    return s_.training.overlap.tp_comm ? dep : c;
  }
  // The MoE block's token exchange before (`to_experts`) or after its expert compute (plan/ep_dispatch.hpp):
  // one all-to-all over the EP group, or the hierarchical dispatcher's across-server then within-server
  // pair (the combine: within, then across).
  uint32_t ep_exchange(uint32_t dep, Phase ph, int mb, bool to_experts) {
    if (s_.parallel.ep == 1) return dep;
    if (ep_across_ == kNone) return coll(StreamKind::ep_comm, CommOp::all_to_all, ep_, c_.a2a_bytes, ph, mb, {dep});
    const std::pair<uint32_t, double> across{ep_across_, ep_across_bytes_}, within{ep_within_, c_.a2a_bytes};
    uint32_t d = dep;
    for (const auto& [group, bytes] : to_experts ? std::array{across, within} : std::array{within, across})
      d = coll(StreamKind::ep_comm, CommOp::all_to_all, group, bytes, ph, mb, {d});
    return d;
  }
  // ZeRO-3: gather layer l's parameters, at most one layer ahead of the compute stream.
  uint32_t zero3_gather(int l, Phase ph, int mb) {
    if (s_.parallel.zero < 3 || s_.parallel.dp == 1) return kNone;
    uint32_t g = coll(StreamKind::dp_comm, CommOp::all_gather, dp_, layer_params(l) * s_.training.weight_bytes, ph, mb,
                      {prev_compute_});
    prev_compute_ = last_compute_;
    return g;
  }

  uint32_t layer_forward(int l, int mb, uint32_t in, Phase ph, bool recompute) {
    const bool moe = is_moe(l);
    uint32_t d = in;
    const uint32_t g = zero3_gather(l, ph, mb);
    const uint32_t pg = first_mb(mb) && !recompute && l < static_cast<int>(param_gather_.size()) ? param_gather_[static_cast<size_t>(l)] : kNone;
    d = tp_before(d, ph, mb);
    uint32_t kv = kNone;
    if (s_.parallel.cp > 1) kv = coll(StreamKind::cp_comm, CommOp::all_gather, cp_, c_.kv_bytes, ph, mb, {d});
    uint32_t a = compute(c_.costs->forward(0, moe), ph, mb, recompute, {d, kv, g, pg});
    d = tp_after(a, ph, mb);
    d = tp_before(d, ph, mb);
    if (moe) d = ep_exchange(d, ph, mb, true);
    uint32_t m = compute(c_.costs->forward(1, moe), ph, mb, recompute, {d});
    if (moe) m = ep_exchange(m, ph, mb, false);
    return tp_after(m, ph, mb);
  }

  // Fine-tuning (finetune.hpp): a block without backward ops is skipped with its collectives; the
  // TP reduction of a block's input gradient only where something below needs it. The MLP block has a
  // backward whenever the attention block does (its input gradient feeds it).
  uint32_t layer_backward(int l, int mb, uint32_t in, BackwardPart part) {
    const BlockTraining attn = block_training(s_, l, 0), mlp = block_training(s_, l, 1);
    if (!mlp.has_backward()) return in;
    const bool moe = is_moe(l);
    const Phase ph = Phase::B;
    uint32_t d = in;
    const uint32_t g = zero3_gather(l, ph, mb);
    d = tp_before(d, ph, mb);
    if (moe) d = ep_exchange(d, ph, mb, true);
    uint32_t m = compute(c_.costs->backward(1, moe, part, mlp), ph, mb, false, {d, g});
    if (moe) m = ep_exchange(m, ph, mb, false);
    uint32_t grads = m, out = m;
    if (attn.has_backward()) {
      d = tp_after(m, ph, mb);
      d = tp_before(d, ph, mb);
      const uint32_t cost = c_.costs->backward(0, moe, part, attn);
      const bool core = c_.costs->has_attention(cost);
      if (s_.training.recompute == Recompute::selective && core)
        d = compute(c_.costs->attention_recompute(), ph, mb, true, {d});
      uint32_t a = compute(cost, ph, mb, false, {d});
      if (s_.parallel.cp > 1 && core) coll(StreamKind::cp_comm, CommOp::reduce_scatter, cp_, c_.kv_bytes, ph, mb, {a});
      out = attn.input_grad ? tp_after(a, ph, mb) : a;
      grads = a;
    }
    if (part == BackwardPart::both && last_mb(mb)) add_grads(l, grads);
    return out;
  }

  void forward(int mb, int chunk) {
    const int vs = vstage(chunk);
    uint32_t d = kNone;
    if (vs > 0) {
      const int prev = rank_of_vstage(vs - 1, chunk);
      if (prev != static_cast<int>(p_.rank)) d = p2p(OpKind::recv, prev, tag(mb, vs - 1, 0), Phase::F, mb, {});
    } else {
      d = compute(c_.costs->embedding(true), Phase::F, mb, false, {});
    }
    for (int l = first_layer(chunk); l < end_layer(chunk); ++l) d = layer_forward(l, mb, d, Phase::F, false);
    if (vs == c_.nvs - 1) {
      compute(c_.costs->logits(BackwardPart::both, true), Phase::F, mb, false, {d});
    } else {
      const int next = rank_of_vstage(vs + 1, chunk);
      if (next != static_cast<int>(p_.rank)) p2p(OpKind::send, next, tag(mb, vs, 0), Phase::F, mb, {d});
    }
  }

  void backward(int mb, int chunk, bool with_weight) {
    const int vs = vstage(chunk);
    const BackwardPart part = c_.split && !with_weight ? BackwardPart::input : BackwardPart::both;
    uint32_t d = kNone;
    if (s_.training.recompute == Recompute::full) {
      uint32_t r = kNone;
      for (int l = first_layer(chunk); l < end_layer(chunk); ++l)
        if (layer_has_backward(s_, l)) r = layer_forward(l, mb, r, Phase::B, true);
      d = r;
    }
    if (vs == c_.nvs - 1) {
      d = compute(c_.costs->logits(part, false), Phase::B, mb, false, {d});
      if (part == BackwardPart::both && last_mb(mb)) add_grads(kOutput, d);
    } else {
      // A gradient crosses a stage boundary only where something below it is trained (finetune.hpp).
      const int next = rank_of_vstage(vs + 1, chunk);
      if (next != static_cast<int>(p_.rank) && gradient_enters(s_, end_layer(chunk)))
        d = p2p(OpKind::recv, next, tag(mb, vs, 1), Phase::B, mb, {d});
    }
    for (int l = end_layer(chunk) - 1; l >= first_layer(chunk); --l) d = layer_backward(l, mb, d, part);
    if (vs > 0) {
      const int prev = rank_of_vstage(vs - 1, chunk);
      if (prev != static_cast<int>(p_.rank) && gradient_enters(s_, first_layer(chunk)))
        p2p(OpKind::send, prev, tag(mb, vs - 1, 1), Phase::B, mb, {d});
    } else if (embedding_trained(s_)) {
      d = compute(c_.costs->embedding(false), Phase::B, mb, false, {d});
      if (last_mb(mb)) add_grads(kEmbedding, d);
    }
  }

  // DualPipe's F&B pair: alternate the two passes' ops (plan/pair_interleave.hpp) and follow the
  // op indices this builder keeps.
  void interleave(uint32_t first, uint32_t mid) {
    const std::vector<uint32_t> moved = interleave_pair(p_, first, mid);
    auto remap = [&](uint32_t& i) {
      if (i != kNone && i >= first) i = moved[i - first];
    };
    for (uint32_t* field : {&last_compute_, &prev_compute_, &last_dp_}) remap(*field);
    grads_.remap(remap);
  }

  void weight_grads(int mb, int chunk) {
    const int vs = vstage(chunk);
    if (vs == c_.nvs - 1 && output_trained(s_)) {
      uint32_t w = compute(c_.costs->logits(BackwardPart::weight, false), Phase::W, mb, false, {});
      if (last_mb(mb)) add_grads(kOutput, w);
    }
    for (int l = end_layer(chunk) - 1; l >= first_layer(chunk); --l) {  // trained blocks only
      const BlockTraining attn = block_training(s_, l, 0), mlp = block_training(s_, l, 1);
      uint32_t w = kNone;
      if (mlp.trains()) w = compute(c_.costs->backward(1, is_moe(l), BackwardPart::weight, mlp), Phase::W, mb, false, {});
      if (attn.trains()) w = compute(c_.costs->backward(0, is_moe(l), BackwardPart::weight, attn), Phase::W, mb, false, {});
      if (w != kNone && last_mb(mb)) add_grads(l, w);
    }
  }

  // ---- data parallelism ----
  // Gradients of layer l (kEmbedding / kOutput: this stage's embedding / output layer) are ready
  // after op `producer`. The mirrored layout's canonical order (GradBuckets): the later piece first,
  // last layer first, the output layer before it and the embedding after it; both mirrors finish
  // the lower piece last, so the first buckets still overlap the remaining backward.
  void add_grads(int l, uint32_t producer) {
    const double params = l == kEmbedding ? trained_embedding() : l == kOutput ? trained_output() : trained_params(l);
    if (dp_size_ == 1 || params <= 0) return;
    GradBuckets::SortKey key{0, 0};
    if (c_.lay->is_mirrored()) {
      const int piece = l == kOutput ? c_.nvs - 1 : l == kEmbedding ? 0 : piece_of_layer(l);
      const int within = l == kOutput ? s_.model.layers : l == kEmbedding ? -1 : l;
      key = {-piece, -within};
    }
    grads_.add(params * s_.training.grad_bytes, producer, key, reduce_grads());
  }
  // One bucket's reduction on the DP stream (ZeRO: reduce-scatter, else all-reduce).
  GradBuckets::Reduce reduce_grads() {
    const CommOp op = s_.parallel.zero >= 1 ? CommOp::reduce_scatter : CommOp::all_reduce;
    return [this, op](double bytes, uint32_t after) {
      return coll(StreamKind::dp_comm, op, dp_, bytes, Phase::W, -1, {after});
    };
  }
  [[nodiscard]] int piece_of_layer(int l) const {
    for (int c = 0; c < c_.lay->chunks(); ++c)
      if (l >= first_layer(c) && l < end_layer(c)) return vstage(c);
    PLANSIM_ASSERT(false, "layer not on this stage");
    return 0;
  }

  // ZeRO-1/2: all-gather the updated (trained) parameters in buckets, in forward layer order.
  void gather_all_params(uint32_t after) {
    param_gather_.assign(static_cast<size_t>(s_.model.layers), kNone);
    double bytes = (trained_embedding() + trained_output()) * s_.training.weight_bytes;
    std::vector<int> pending_layers;
    auto flush = [&]() {
      if (bytes <= 0) return;
      uint32_t g = coll(StreamKind::dp_comm, CommOp::all_gather, dp_, bytes, Phase::F, -1, {after});
      for (int l : pending_layers) param_gather_[static_cast<size_t>(l)] = g;
      pending_layers.clear();
      bytes = 0;
    };
    for (int c : chunks_in_layer_order())
      for (int l = first_layer(c); l < end_layer(c); ++l) {
        if (trained_params(l) <= 0) continue;
        bytes += trained_params(l) * s_.training.weight_bytes;
        pending_layers.push_back(l);
        if (bytes >= s_.training.grad_bucket.value()) flush();
      }
    flush();
  }

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
};

}  // namespace

CompiledPlan compile_plan(const Scenario& s, const CompileOptions& options) {
  const ParallelSpec& par = s.parallel;
  CompiledPlan plan;
  plan.world = par.world();
  plan.stages = par.pp;
  plan.micro_batches = s.micro_batches();
  auto sched = make_schedule(s.schedule.kind);
  const ScheduleShape shape{par.pp, plan.micro_batches, s.schedule.virtual_stages};
  const PipelineLayout lay = sched->layout(shape);
  StageOrders orders = sched->build(shape);
  if (s.schedule.moe_a2a_overlap) pair_for_a2a_overlap(orders);
  check_orders(orders, lay, sched->splits_backward());

  RankMapping map(par);
  CostTable costs(s, plan.costs);
  GroupTable groups(plan.groups);
  const double e = activation_element_bytes(s.model.dtype);  // fp8 runs move bf16 activations
  const double tokens = static_cast<double>(s.training.micro_batch * s.model.seq_len) / par.cp;
  const LayerPartition layers(s.model.layers, lay.pieces(), par.stage_layers, par.split_embedding, par.split_loss);
  const auto chunk_layers = layers_per_chunk(lay, layers);
  plan.held = stage_holdings(orders, sched->splits_backward(), &chunk_layers);
  Context c{&s, &map, &costs, &groups, &orders, &lay, &layers, sched->splits_backward(), lay.pieces(), 0, 0, 0, 0, 0};
  c.act_bytes = tokens * static_cast<double>(s.model.hidden) * e;
  c.pp_bytes = c.act_bytes / (par.sequence_parallel ? par.tp : 1);
  c.kv_bytes = static_cast<double>(s.training.micro_batch * s.model.seq_len) * 2 * s.model.kv_heads *
               static_cast<double>(s.model.head_dim()) / par.tp * e;
  // All-to-all: every token goes out top_k times (one copy per chosen expert; the share bound for
  // this rank's own experts stays local, which the collective's (n−1)/n accounts). With a capacity
  // factor Megatron sends the padded per-expert buffers: ceil(cf·t·k/E) tokens for each of E experts.
  if (const auto& moe = s.model.moe) {
    const double h = static_cast<double>(s.model.hidden);
    c.a2a_bytes = moe->capacity_factor
                      ? std::ceil(*moe->capacity_factor * tokens * moe->top_k / moe->experts) * moe->experts * h * e
                      : tokens * moe->top_k * h * e;
    c.token_bytes = tokens * h * e;
  }
  PLANSIM_ASSERT(!(options.fold_tp && options.fold_dp), "compile_plan: fold TP or DP, not both");
  const Dim fold_dim = options.fold_dp ? Dim::dp : Dim::tp;
  PLANSIM_ASSERT(options.fold_block >= 1 && map.size(fold_dim) % options.fold_block == 0,
                 "compile_plan: the fold block must divide the folded dimension");
  const bool fold = (options.fold_tp || options.fold_dp) && map.size(fold_dim) / options.fold_block > 1;
  if (fold) {
    plan.fold = map.size(fold_dim) / options.fold_block;
    plan.fold_dim = fold_dim;
    RankCoords one = map.coords(0);
    one[fold_dim] = options.fold_block;
    plan.fold_stride = map.rank(one);
  }
  plan.program_of_rank.assign(static_cast<size_t>(plan.world), -1);
  std::vector<std::pair<size_t, size_t>> sizes(static_cast<size_t>(par.pp));  // per stage: last program's ops, deps
  for (int r = 0; r < plan.world; ++r) {
    if (fold && map.coords(r)[fold_dim] >= options.fold_block) continue;
    if (options.first_replica_only && (map.coords(r)[Dim::dp] != 0 || map.coords(r)[Dim::ep] != 0)) continue;
    plan.program_of_rank[static_cast<size_t>(r)] = static_cast<int32_t>(plan.programs.size());
    Program& p = plan.programs.emplace_back();
    p.rank = static_cast<uint32_t>(r);
    // Ranks of one stage get programs of the same size: reserve it rather than grow op by op.
    auto& [ops, deps] = sizes[static_cast<size_t>(map.coords(r)[Dim::pp])];
    p.ops.reserve(ops);
    p.deps.reserve(deps);
    RankBuilder(c, p).build();
    ops = p.ops.size();
    deps = p.deps.size();
  }
  for (Group& g : plan.groups)
    for (uint32_t m : g.ranks)
      if (plan.program_of_rank[m] >= 0) ++g.simulated_members;
  return plan;
}

}  // namespace plansim
