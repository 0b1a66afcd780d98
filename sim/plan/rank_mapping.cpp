#include "sim/plan/rank_mapping.hpp"

#include <algorithm>

namespace plansim {

RankMapping::RankMapping(const ParallelSpec& p) : order_(p.order) {
  sizes_[static_cast<size_t>(Dim::tp)] = p.tp;
  sizes_[static_cast<size_t>(Dim::cp)] = p.cp;
  const bool folded = p.experts_folded();
  sizes_[static_cast<size_t>(Dim::ep)] = folded ? 1 : p.ep;
  sizes_[static_cast<size_t>(Dim::dp)] = folded ? p.dp : p.dp / p.ep;
  if (folded) {
    expert_tp_ = p.expert_tp_size();
    expert_ep_ = p.ep;
  }
  sizes_[static_cast<size_t>(Dim::pp)] = p.pp;
  for (int s : sizes_) world_ *= s;
}

RankCoords RankMapping::coords(int r) const {
  RankCoords c;
  for (Dim d : order_) {
    c[d] = r % size(d);
    r /= size(d);
  }
  return c;
}

int RankMapping::rank(const RankCoords& c) const {
  int r = 0;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) r = r * size(*it) + c[*it];
  return r;
}

std::vector<int> RankMapping::group(int r, std::span<const Dim> vary) const {
  const RankCoords base = coords(r);
  // Enumerate the varying coordinates in `order_` (innermost first = fastest).
  std::vector<Dim> dims;
  for (Dim d : order_)
    if (std::find(vary.begin(), vary.end(), d) != vary.end()) dims.push_back(d);
  int n = 1;
  for (Dim d : dims) n *= size(d);
  std::vector<int> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    RankCoords c = base;
    int k = i;
    for (Dim d : dims) {
      c[d] = k % size(d);
      k /= size(d);
    }
    out.push_back(rank(c));
  }
  return out;
}

std::vector<int> RankMapping::expert_group(int r) const {
  if (expert_tp_ == 0) return group(r, {Dim::ep});
  // The rank's index inside its pipeline stage: its coordinates other than pp, innermost first.
  const RankCoords base = coords(r);
  int index = 0, stride = 1;
  for (Dim d : order_) {
    if (d == Dim::pp) continue;
    index += base[d] * stride;
    stride *= size(d);
  }
  const int digit = (index / expert_tp_) % expert_ep_;
  const int first = index - digit * expert_tp_;
  std::vector<int> out;
  out.reserve(static_cast<size_t>(expert_ep_));
  for (int i = 0; i < expert_ep_; ++i) {
    RankCoords c = base;
    int k = first + i * expert_tp_;
    for (Dim d : order_) {
      if (d == Dim::pp) continue;
      c[d] = k % size(d);
      k /= size(d);
    }
    out.push_back(rank(c));
  }
  return out;
}

}  // namespace plansim
