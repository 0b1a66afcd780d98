#pragma once
// Ranks -> parallel coordinates by the scenario's `order` (innermost first): with the default
// [tp, cp, ep, dp, pp], consecutive ranks form TP groups (inside a server), and PP is outermost.
// EP subdivides DP as in Megatron: the "ep" coordinate has size ep, the "dp" coordinate dp/ep (with
// the experts folded, ParallelSpec::expert_tp, the ep coordinate has size 1 and expert_group forms EP); the
// expert-DP group varies only the latter. The group that holds the same dense parameters, reduces their
// gradients and shards them under ZeRO varies cp, ep and dp: CP ranks hold the same weights and see
// different tokens of the same sequences, so their gradients are partial sums too (Megatron-Core reduces
// and shards over `get_data_parallel_group(with_context_parallel=True)`, torchtitan's FSDP over its
// `dp_shard_cp` mesh).
#include <array>
#include <initializer_list>
#include <span>
#include <vector>

#include "sim/plan/scenario.hpp"

namespace plansim {

// The coordinates the dense data-parallel group varies (above).
inline constexpr std::array<Dim, 3> kDenseDataParallel{Dim::cp, Dim::ep, Dim::dp};

struct RankCoords {
  std::array<int, 5> c{};  // indexed by Dim
  [[nodiscard]] int operator[](Dim d) const { return c[static_cast<size_t>(d)]; }
  int& operator[](Dim d) { return c[static_cast<size_t>(d)]; }
};

class RankMapping {
 public:
  explicit RankMapping(const ParallelSpec& p);
  [[nodiscard]] int world() const { return world_; }
  [[nodiscard]] int size(Dim d) const { return sizes_[static_cast<size_t>(d)]; }
  [[nodiscard]] RankCoords coords(int rank) const;
  [[nodiscard]] int rank(const RankCoords& c) const;
  // Ranks sharing every coordinate of `rank` except those in `vary`, ordered by group rank
  // (the varying coordinates, first listed innermost).
  [[nodiscard]] std::vector<int> group(int rank, std::span<const Dim> vary) const;
  [[nodiscard]] std::vector<int> group(int rank, std::initializer_list<Dim> vary) const {
    return group(rank, std::span<const Dim>(vary.begin(), vary.size()));
  }
  // The expert-parallel group of `rank`: group(rank, {ep}), or with the experts folded
  // (ParallelSpec::expert_tp) the ranks of its pipeline stage whose index in the stage (the order's
  // coordinates other than pp, innermost first) differs only in the expert grid's EP digit
  // (stage index = etp_index + expert_tp · (ep_index + ep · edp_index), Megatron-Core's expert rank
  // generator, order tp-ep-dp), ordered by ep_index.
  [[nodiscard]] std::vector<int> expert_group(int rank) const;

 private:
  std::array<int, 5> sizes_{};   // by Dim
  std::array<Dim, 5> order_{};
  int world_ = 1;
  int expert_tp_ = 0;  // > 0: the experts fold (expert_group); the ep coordinate then has size 1
  int expert_ep_ = 1;
};

}  // namespace plansim
