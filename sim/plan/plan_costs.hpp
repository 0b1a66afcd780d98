#pragma once
// The compute-cost table a plan's compute ops index into: one entry per distinct fused op
// (attention block forward, MLP block backward input part, ...), shared by all ranks.
#include <cstdint>
#include <map>
#include <string>

#include "sim/plan/program.hpp"

namespace plansim {

class CostTable {
 public:
  CostTable(const Scenario& s, std::vector<ComputeCost>& out);
  // Fused op of layer kind (moe or dense): block 0 = attention, 1 = MLP.
  uint32_t forward(int block, bool moe);
  uint32_t backward(int block, bool moe, BackwardPart part);
  uint32_t attention_recompute();  // selective recompute: the attention core forward
  uint32_t embedding(bool forward);
  uint32_t logits(BackwardPart part, bool forward);
  uint32_t optimizer(double params);  // Adam step over `params` local parameters (memory-bound)

 private:
  uint32_t add(const std::string& key, std::vector<OpCost> kernels);
  const Scenario* s_;
  Shard shard_;
  std::vector<ComputeCost>* out_;
  std::map<std::string, uint32_t> index_;
};

}  // namespace plansim
