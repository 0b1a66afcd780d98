#include "sim/plan/rank_builder.hpp"

#include "sim/core/assert.hpp"
#include "sim/plan/pair_interleave.hpp"

namespace plansim::rank_build {

void RankBuilder::interleave(uint32_t first, uint32_t mid) {
  const std::vector<uint32_t> moved = interleave_pair(p_, first, mid);
  auto remap = [&](uint32_t& i) {
    if (i != kNone && i >= first) i = moved[i - first];
  };
  for (uint32_t* field : {&last_compute_, &prev_compute_, &last_dp_}) remap(*field);
  for (auto& [pass, copies] : offloads_)
    for (uint32_t& c : copies) remap(c);
  grads_.remap(remap);
}

void RankBuilder::add_grads(int l, uint32_t producer) {
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

GradBuckets::Reduce RankBuilder::reduce_grads() {
  const CommOp op = s_.parallel.zero >= 1 ? CommOp::reduce_scatter : CommOp::all_reduce;
  return [this, op](double bytes, uint32_t after) {
    return coll(StreamKind::dp_comm, op, dp_, bytes, Phase::W, -1, {after});
  };
}

int RankBuilder::piece_of_layer(int l) const {
  for (int c = 0; c < c_.lay->chunks(); ++c)
    if (l >= first_layer(c) && l < end_layer(c)) return vstage(c);
  PLANSIM_ASSERT(false, "layer not on this stage");
  return 0;
}

void RankBuilder::gather_all_params(uint32_t after) {
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

}  // namespace plansim::rank_build
