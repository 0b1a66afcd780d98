#include "sim/plan/rank_builder.hpp"

#include "sim/model/memory.hpp"

namespace plansim::rank_build {

uint32_t RankBuilder::tp_after(const BlockOps& block, Phase ph, int mb) {
  if (s_.parallel.tp == 1) return block.last;
  const CommOp op = s_.parallel.sequence_parallel ? CommOp::reduce_scatter : CommOp::all_reduce;
  const bool ov = block.paired_from != kNone;
  uint32_t c = coll(StreamKind::tp_comm, op, tp_, c_.act_bytes, ph, mb, {ov ? block.paired_from : block.last});
  if (ov) tp_ov_.join = c;
  return ov ? block.last : c;
}

uint32_t RankBuilder::tp_before(uint32_t dep, Phase ph, int mb, bool paired) {
  if (s_.parallel.tp == 1 || !s_.parallel.sequence_parallel) return dep;
  uint32_t c = coll(StreamKind::tp_comm, CommOp::all_gather, tp_, c_.act_bytes, ph, mb, {dep});
  if (!paired) return c;
  tp_ov_.gather = c;
  return dep;
}

uint32_t RankBuilder::split_before(const TpSplit& sp, Phase ph, int mb, bool recompute,
                                   std::initializer_list<uint32_t> deps) {
  const uint32_t g = compute(sp.before, ph, mb, recompute, deps);
  tp_ov_.join = tp_ov_.gather;  // the all-gather beside it (kNone without sequence parallelism)
  tp_ov_.gather = kNone;
  return g;
}

RankBuilder::BlockOps RankBuilder::split_rest(const TpSplit& sp, Phase ph, int mb, bool recompute,
                                              std::initializer_list<uint32_t> deps) {
  const uint32_t r = compute(sp.rest, ph, mb, recompute, deps);
  if (sp.after == TpSplit::kNoEntry) return whole(r);
  return BlockOps{r, r, compute(sp.after, ph, mb, recompute, {r})};
}

uint32_t RankBuilder::ep_exchange(uint32_t dep, Phase ph, int mb, bool to_experts) {
  if (s_.parallel.ep == 1) return dep;
  if (ep_across_ == kNone) return coll(StreamKind::ep_comm, CommOp::all_to_all, ep_, c_.a2a_bytes, ph, mb, {dep});
  const std::pair<uint32_t, double> across{ep_across_, ep_across_bytes_}, within{ep_within_, c_.a2a_bytes};
  uint32_t d = dep;
  for (const auto& [group, bytes] : to_experts ? std::array{across, within} : std::array{within, across})
    d = coll(StreamKind::ep_comm, CommOp::all_to_all, group, bytes, ph, mb, {d});
  return d;
}

uint32_t RankBuilder::zero3_gather(int l, Phase ph, int mb) {
  if (s_.parallel.zero < 3 || dp_size_ == 1) return kNone;
  uint32_t g = coll(StreamKind::dp_comm, CommOp::all_gather, dp_, layer_params(l) * s_.training.weight_bytes, ph, mb,
                    {prev_compute_});
  prev_compute_ = last_compute_;
  return g;
}

uint32_t RankBuilder::layer_forward(int l, int mb, uint32_t in, Phase ph, bool recompute, uint32_t wait) {
  const bool moe = is_moe(l);
  uint32_t d = in;
  const uint32_t g = zero3_gather(l, ph, mb);
  const uint32_t pg = first_mb(mb) && !recompute && l < static_cast<int>(param_gather_.size()) ? param_gather_[static_cast<size_t>(l)] : kNone;
  const TpSplit sa = c_.costs->forward_split(0, moe);
  d = tp_before(d, ph, mb, sa.split());
  uint32_t kv = kNone;
  if (s_.parallel.cp > 1) kv = coll(StreamKind::cp_comm, CommOp::all_gather, cp_, c_.kv_bytes, ph, mb, {d});
  const BlockOps a = sa.split() ? split_rest(sa, ph, mb, recompute, {split_before(sa, ph, mb, recompute, {d, g, pg, wait}), kv})
                                : whole(compute(c_.costs->forward(0, moe), ph, mb, recompute, {d, kv, g, pg, wait}));
  d = tp_after(a, ph, mb);
  const bool mlp_tp = mlp_tp_comm(moe);
  const TpSplit sm = mlp_tp ? c_.costs->forward_split(1, moe) : TpSplit{};
  if (mlp_tp) d = tp_before(d, ph, mb, sm.split());
  if (moe) d = ep_exchange(d, ph, mb, true);
  BlockOps m = sm.split() ? split_rest(sm, ph, mb, recompute, {split_before(sm, ph, mb, recompute, {d})})
                          : whole(compute(c_.costs->forward(1, moe), ph, mb, recompute, {d}));
  if (moe) m = whole(ep_exchange(m.last, ph, mb, false));
  return mlp_tp ? tp_after(m, ph, mb) : m.last;
}

uint32_t RankBuilder::op_sac_recompute(int l, int mb, uint32_t in, uint32_t gather, uint32_t wait) {
  const bool moe = is_moe(l);
  const Phase ph = Phase::B;
  uint32_t d = tp_before(in, ph, mb, false);
  d = compute(c_.costs->op_sac_recompute(0, moe), ph, mb, true, {d, gather, wait});
  if (!s_.parallel.sequence_parallel) d = tp_after(whole(d), ph, mb);
  if (mlp_tp_comm(moe)) d = tp_before(d, ph, mb, false);
  return compute(c_.costs->op_sac_recompute(1, moe), ph, mb, true, {d});
}

uint32_t RankBuilder::layer_backward(int l, int mb, uint32_t in, BackwardPart part, uint32_t wait) {
  const BlockTraining attn = block_training(s_, l, 0), mlp = block_training(s_, l, 1);
  if (!mlp.has_backward()) return in;
  const bool moe = is_moe(l);
  const Phase ph = Phase::B;
  uint32_t d = in;
  const uint32_t g = zero3_gather(l, ph, mb);
  if (s_.training.recompute == Recompute::selective_op) {
    d = op_sac_recompute(l, mb, d, g, wait);
    wait = kNone;
  }
  const bool mlp_tp = mlp_tp_comm(moe);
  const TpSplit sm = mlp_tp ? c_.costs->backward_split(1, moe, part, mlp) : TpSplit{};
  if (mlp_tp) d = tp_before(d, ph, mb, sm.split());
  if (moe) d = ep_exchange(d, ph, mb, true);
  BlockOps m = sm.split() ? split_rest(sm, ph, mb, false, {split_before(sm, ph, mb, false, {d, g, wait})})
                          : whole(compute(c_.costs->backward(1, moe, part, mlp), ph, mb, false, {d, g, wait}));
  if (moe) m = whole(ep_exchange(m.last, ph, mb, false));
  uint32_t grads = m.last, out = m.last;
  if (attn.has_backward()) {
    d = mlp_tp ? tp_after(m, ph, mb) : m.last;
    const TpSplit sa = c_.costs->backward_split(0, moe, part, attn);
    d = tp_before(d, ph, mb, sa.split());
    const uint32_t cost = sa.split() ? sa.rest : c_.costs->backward(0, moe, part, attn);
    const bool core = c_.costs->has_attention(cost);
    // Cut: the output gradient's GEMM first (beside its all-gather), then the recomputed attention core.
    if (sa.split()) d = split_before(sa, ph, mb, false, {d});
    if (s_.training.recompute == Recompute::selective && core)
      d = compute(c_.costs->attention_recompute(), ph, mb, true, {d});
    const BlockOps a = sa.split() ? split_rest(sa, ph, mb, false, {d}) : whole(compute(cost, ph, mb, false, {d}));
    if (s_.parallel.cp > 1 && core) coll(StreamKind::cp_comm, CommOp::reduce_scatter, cp_, c_.kv_bytes, ph, mb, {a.core});
    out = attn.input_grad ? tp_after(a, ph, mb) : a.last;
    grads = a.last;
  }
  if (part == BackwardPart::both && last_mb(mb)) add_grads(l, grads);
  return out;
}

void RankBuilder::forward(int mb, int chunk) {
  const int vs = vstage(chunk);
  uint32_t d = kNone;
  if (vs > 0) {
    const int prev = rank_of_vstage(vs - 1, chunk);
    if (prev != static_cast<int>(p_.rank)) d = p2p(OpKind::recv, prev, tag(mb, vs - 1, 0), Phase::F, mb, {});
  } else {
    d = compute(c_.costs->embedding(true), Phase::F, mb, false, {});
  }
  // Activation offload (Transformer Engine's double-buffered CPU offload): an offloaded layer's saved
  // activations go out on the D2H copy engine once its forward ends; the layer two after it starts only
  // when that copy is done (two layers' buffers on the GPU at most).
  const int off = offloaded_layers(chunk);
  std::vector<uint32_t> copies;
  for (int l = first_layer(chunk); l < end_layer(chunk); ++l) {
    const int k = l - first_layer(chunk);
    const uint32_t wait = k >= 2 && k - 2 < off ? copies[static_cast<size_t>(k - 2)] : kNone;
    d = layer_forward(l, mb, d, Phase::F, false, wait);
    if (k < off) copies.push_back(host_copy(StreamKind::d2h, offload_bytes(l), Phase::F, mb, {d}));
  }
  if (off > 0) offloads_[{mb, chunk}] = std::move(copies);
  if (vs == c_.nvs - 1) {
    compute(c_.costs->logits(BackwardPart::both, true), Phase::F, mb, false, {d});
  } else {
    const int next = rank_of_vstage(vs + 1, chunk);
    if (next != static_cast<int>(p_.rank)) p2p(OpKind::send, next, tag(mb, vs, 0), Phase::F, mb, {d});
  }
}

void RankBuilder::backward(int mb, int chunk, bool with_weight) {
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
  // Activation offload: an offloaded layer's activations come back on the H2D copy engine while the
  // layer after it runs its backward (after its own offload ended), and its backward waits for them.
  std::vector<uint32_t> copies;
  if (auto it = offloads_.find({mb, chunk}); it != offloads_.end()) {
    copies = std::move(it->second);
    offloads_.erase(it);
  }
  uint32_t reload = kNone;  // the reload the next layer down waits for
  for (int l = end_layer(chunk) - 1; l >= first_layer(chunk); --l) {
    const uint32_t wait = reload;
    const auto below = static_cast<size_t>(l - 1 - first_layer(chunk));
    reload = l > first_layer(chunk) && below < copies.size()
                 ? host_copy(StreamKind::h2d, offload_bytes(l - 1), Phase::B, mb, {copies[below], d})
                 : kNone;
    d = layer_backward(l, mb, d, part, wait);
  }
  if (vs > 0) {
    const int prev = rank_of_vstage(vs - 1, chunk);
    if (prev != static_cast<int>(p_.rank) && gradient_enters(s_, first_layer(chunk)))
      p2p(OpKind::send, prev, tag(mb, vs - 1, 1), Phase::B, mb, {d});
  } else if (embedding_trained(s_)) {
    d = compute(c_.costs->embedding(false), Phase::B, mb, false, {d});
    if (last_mb(mb)) add_grads(kEmbedding, d);
  }
}

int RankBuilder::offloaded_layers(int chunk) const {
  return plansim::offloaded_layers(s_.training, end_layer(chunk) - first_layer(chunk));
}

double RankBuilder::offload_bytes(int l) const { return activation_bytes_of_layer(s_, l).value(); }

void RankBuilder::weight_grads(int mb, int chunk) {
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

}  // namespace plansim::rank_build
