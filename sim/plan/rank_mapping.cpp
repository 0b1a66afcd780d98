#include "sim/plan/rank_mapping.hpp"

#include <algorithm>

namespace plansim {

RankMapping::RankMapping(const ParallelSpec& p) : order_(p.order) {
  sizes_[static_cast<size_t>(Dim::tp)] = p.tp;
  sizes_[static_cast<size_t>(Dim::cp)] = p.cp;
  sizes_[static_cast<size_t>(Dim::ep)] = p.ep;
  sizes_[static_cast<size_t>(Dim::dp)] = p.dp / p.ep;
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

}  // namespace plansim
