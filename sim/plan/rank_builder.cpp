#include "sim/plan/rank_builder.hpp"

#include "sim/model/memory.hpp"
#include "sim/plan/ep_dispatch.hpp"

namespace plansim::rank_build {

RankBuilder::RankBuilder(const Context& c, Program& p)
    : c_(c), p_(p), s_(*c.s),
      grads_(c.s->training.grad_bucket.value(), c.s->training.overlap.grad_reduce, c.s->parallel.zero >= 3,
             c.lay->is_mirrored()) {
  const ParallelSpec& par = s_.parallel;
  const int r = static_cast<int>(p.rank);
  coords_ = c.map->coords(r);
  p.stage = coords_[Dim::pp];
  tp_ = c.groups->id(Dim::tp, c.map->group(r, {Dim::tp}));
  cp_ = c.groups->id(Dim::cp, c.map->group(r, {Dim::cp}));
  const std::vector<int> ep_members = c.map->expert_group(r);
  ep_ = c.groups->id(Dim::ep, ep_members);
  if (par.ep_dispatcher == ParallelSpec::EpDispatcher::hierarchical && s_.model.moe && par.ep > 1) {
    const EpSplit split = split_ep_group(ep_members, r, par.domain_gpus);
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
  moe_expert_params_ = pc.expert_params_per_moe_layer / (par.expert_tp_size() * par.ep);
  adapter_params_ = adapter_params(s_.model, s_.training.finetune, 0, par.tp);
  // Embedding (the stage holding the first piece) and output layer + final norm (the last piece),
  // each this rank's share.
  if (c.lay->holds(p.stage, 0)) emb_params_ = pc.embedding / par.tp;
  if (c.lay->holds(p.stage, c.nvs - 1)) out_params_ = stage_parameters(s_, 0, 0, false, true).dense;
}

void RankBuilder::build() {
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

std::vector<int> RankBuilder::data_parallel_members(int r) const {
  std::vector<int> members = c_.map->group(r, kDenseDataParallel);
  if (!c_.lay->is_mirrored()) return members;
  RankCoords m = coords_;
  m[Dim::pp] = s_.parallel.pp - 1 - coords_[Dim::pp];
  std::vector<int> mirror = c_.map->group(c_.map->rank(m), kDenseDataParallel);
  if (m[Dim::pp] < coords_[Dim::pp]) std::swap(members, mirror);
  members.insert(members.end(), mirror.begin(), mirror.end());
  return members;
}

std::vector<int> RankBuilder::chunks_in_layer_order() const {
  std::vector<int> c(static_cast<size_t>(c_.lay->chunks()));
  for (int i = 0; i < c_.lay->chunks(); ++i) c[static_cast<size_t>(i)] = i;
  std::sort(c.begin(), c.end(), [&](int a, int b) { return vstage(a) < vstage(b); });
  return c;
}

double RankBuilder::local_params() const {
  double n = trained_embedding() + trained_output();
  for (int c = 0; c < c_.lay->chunks(); ++c)
    for (int l = first_layer(c); l < end_layer(c); ++l) n += trained_params(l);
  return n;
}

}  // namespace plansim::rank_build
