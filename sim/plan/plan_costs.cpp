#include "sim/plan/plan_costs.hpp"

#include <fmt/format.h>

#include "sim/plan/tp_overlap.hpp"

namespace plansim {

CostTable::CostTable(const Scenario& s, std::vector<ComputeCost>& out) : s_(&s), out_(&out) {
  shard_ = shard_of(s);
  if (s.training.overlap.tp_comm && s.parallel.tp > 1) shard_.tp_overlap_chunks = s.parallel.tp;
  tp_split_ = shard_.tp_overlap_chunks > 1;
  shard_.micro_batches = s.micro_batches();
  // ZeRO-3 gathers weight_bytes per parameter: at most 1 byte in an fp8 model = the weights gathered in fp8.
  const int holders = s.parallel.weight_replicas();
  if (s.parallel.zero >= 3 && holders > 1 && s.model.dtype == DType::fp8 && s.training.weight_bytes <= 1)
    shard_.fp8_weight_shard = 1.0 / holders;
}

uint32_t CostTable::add(const std::string& key, std::vector<OpCost> kernels) {
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  ComputeCost c{key, std::move(kernels), 0};
  c.flops = total_flops(c.kernels);
  out_->push_back(std::move(c));
  const auto id = static_cast<uint32_t>(out_->size() - 1);
  index_.emplace(key, id);
  return id;
}

namespace {
const char* part_name(BackwardPart p) {
  return p == BackwardPart::both ? "bwd" : p == BackwardPart::input ? "bwd_input" : "bwd_weight";
}
// Layer index of the first dense / first MoE layer, to get that kind's ops.
int layer_of_kind(const ModelSpec& m, bool moe) {
  for (int l = 0; l < m.layers; ++l)
    if (m.is_moe_layer(l) == moe) return l;
  return 0;
}
std::string forward_name(int block, bool moe) {
  return fmt::format("{}{}_fwd", moe && block == 1 ? "moe_" : "", block == 0 ? "attention" : "mlp");
}
// Fine-tuning variants: "_frozen" (no weight gradients of the block's own weights), "_lora" (adapter
// gradients), "_nograd" (no input gradient); the default (everything trained) keeps the plain name.
std::string backward_name(int block, bool moe, BackwardPart part, BlockTraining bt) {
  const std::string variant = fmt::format("{}{}{}", bt.base ? "" : "_frozen", bt.adapters ? "_lora" : "",
                                          bt.input_grad ? "" : "_nograd");
  return fmt::format("{}{}_{}{}", moe && block == 1 ? "moe_" : "", block == 0 ? "attention" : "mlp",
                     part_name(part), variant);
}
}  // namespace

uint32_t CostTable::forward(int block, bool moe) {
  uint32_t& id = forward_ids_[static_cast<size_t>(block * 2 + (moe ? 1 : 0))];
  if (id != kUnset) return id;
  return id = add(forward_name(block, moe), block_forward(block, moe));
}

std::vector<OpCost> CostTable::block_forward(int block, bool moe) const {
  LayerForward f = layer_forward(s_->model, layer_of_kind(s_->model, moe), s_->training.micro_batch, shard_);
  return with_adapters(block == 0 ? f.attention : f.mlp, s_->training.finetune, block, dtype_size(s_->model.dtype).value());
}

int CostTable::backward_slot(int block, bool moe, BackwardPart part, BlockTraining bt) {
  return ((block * 2 + (moe ? 1 : 0)) * 3 + static_cast<int>(part)) * 8 + bt.index();
}

std::vector<OpCost> CostTable::block_backward(int block, bool moe, BackwardPart part, BlockTraining bt) const {
  return finetune_backward(block_forward(block, moe), bt, part);
}

uint32_t CostTable::backward(int block, bool moe, BackwardPart part, BlockTraining bt) {
  uint32_t& id = backward_ids_[static_cast<size_t>(backward_slot(block, moe, part, bt))];
  if (id != kUnset) return id;
  return id = add(backward_name(block, moe, part, bt), block_backward(block, moe, part, bt));
}

TpSplit CostTable::add_split(const std::string& name, const std::vector<OpCost>& kernels, bool backward) {
  const TpPairs pairs = tp_pairs(kernels, backward);
  if (!pairs.split()) return {};
  std::vector<OpCost> rest;
  for (size_t i = 0; i < kernels.size(); ++i)
    if (static_cast<int>(i) != pairs.before && static_cast<int>(i) != pairs.after) rest.push_back(kernels[i]);
  auto one = [&](int i) {
    const OpCost& k = kernels[static_cast<size_t>(i)];
    return add(name + ":" + k.name, {k});
  };
  TpSplit t;
  t.before = one(pairs.before);
  t.rest = add(name + ":rest", std::move(rest));
  if (pairs.after >= 0) t.after = one(pairs.after);
  return t;
}

TpSplit CostTable::forward_split(int block, bool moe) {
  if (!tp_split_) return {};
  const auto slot = static_cast<size_t>(block * 2 + (moe ? 1 : 0));
  if (!forward_split_set_[slot]) {
    forward_splits_[slot] = add_split(forward_name(block, moe), block_forward(block, moe), false);
    forward_split_set_[slot] = true;
  }
  return forward_splits_[slot];
}

TpSplit CostTable::backward_split(int block, bool moe, BackwardPart part, BlockTraining bt) {
  if (!tp_split_) return {};
  const auto slot = static_cast<size_t>(backward_slot(block, moe, part, bt));
  if (!backward_split_set_[slot]) {
    backward_splits_[slot] = add_split(backward_name(block, moe, part, bt), block_backward(block, moe, part, bt), true);
    backward_split_set_[slot] = true;
  }
  return backward_splits_[slot];
}

uint32_t CostTable::attention_recompute() {
  if (recompute_id_ != kUnset) return recompute_id_;
  const LayerForward f = recomputed_forward(s_->model, Recompute::selective, 0, s_->training.micro_batch, shard_);
  return recompute_id_ = add("attention_core_recompute", f.attention);
}

uint32_t CostTable::op_sac_recompute(int block, bool moe) {
  uint32_t& id = op_sac_ids_[static_cast<size_t>(block * 2 + (moe ? 1 : 0))];
  if (id != kUnset) return id;
  const LayerForward f =
      recomputed_forward(s_->model, Recompute::selective_op, layer_of_kind(s_->model, moe), s_->training.micro_batch, shard_);
  return id = add(fmt::format("{}_op_recompute", forward_name(block, moe)), block == 0 ? f.attention : f.mlp);
}

uint32_t CostTable::embedding(bool fwd) {
  uint32_t& id = embedding_ids_[fwd ? 1 : 0];
  if (id != kUnset) return id;
  auto ops = embedding_forward(s_->model, s_->training.micro_batch, shard_);
  return id = fwd ? add("embedding_fwd", ops) : add("embedding_bwd", backward_of(ops, BackwardPart::both));
}

uint32_t CostTable::logits(BackwardPart part, bool fwd) {
  uint32_t& id = logits_ids_[fwd ? 3 : static_cast<size_t>(part)];
  if (id != kUnset) return id;
  auto ops = logits_forward(s_->model, s_->training.micro_batch, shard_);
  if (fwd) return id = add("logits_fwd", ops);
  const BlockTraining bt = output_training(*s_);
  return id = add(fmt::format("logits_{}{}", part_name(part), bt.base ? "" : "_frozen"), finetune_backward(ops, bt, part));
}

uint32_t CostTable::optimizer(double params) {
  // Adam: read gradients, read and write fp32 master weights and both moments, write weights.
  const TrainingSpec& t = s_->training;
  const double bytes = params * (t.grad_bytes + 2 * t.optimizer_bytes + t.weight_bytes);
  return add(fmt::format("optimizer_step_{:.0f}", params), {OpCost{"adam", OpClass::elementwise, 0, bytes}});
}

uint32_t CostTable::host_copy(double bytes, bool to_host) {
  OpCost k{to_host ? "offload_d2h" : "reload_h2d", OpClass::host_copy};
  k.host_link_bytes = bytes;
  return add(fmt::format("{}_{:.0f}", to_host ? "activation_offload" : "activation_reload", bytes), {k});
}

bool CostTable::has_attention(uint32_t id) const {
  for (const OpCost& k : (*out_)[id].kernels)
    if (k.cls == OpClass::attention) return true;
  return false;
}

}  // namespace plansim
