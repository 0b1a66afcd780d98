#include "sim/advise/stage_balance.hpp"

#include <algorithm>
#include <limits>

#include "sim/compute/compute_model.hpp"
#include "sim/core/assert.hpp"
#include "sim/model/transformer.hpp"

namespace plansim::advise {

LayerWork estimate_layer_work(const Scenario& s, const GpuSpec& gpu) {
  const ComputeModel cm(ComputeParams::for_scenario(gpu, s));
  const Shard sh = shard_of(s);
  const int64_t b = s.training.micro_batch;
  auto fwd_bwd = [&](const std::vector<OpCost>& f) {
    return (cm.ops_time(f) + cm.ops_time(backward_of(f, BackwardPart::both))).seconds();
  };
  LayerWork w;
  for (int l = 0; l < s.model.layers; ++l) {
    const LayerForward f = layer_forward(s.model, l, b, sh);
    const LayerForward r = recomputed_forward(s.model, s.training.recompute, l, b, sh);
    w.layer_s.push_back(fwd_bwd(f.attention) + fwd_bwd(f.mlp) + (cm.ops_time(r.attention) + cm.ops_time(r.mlp)).seconds());
  }
  w.embedding_s = fwd_bwd(embedding_forward(s.model, b, sh));
  w.logits_s = fwd_bwd(logits_forward(s.model, b, sh));
  return w;
}

std::vector<double> piece_work(const LayerWork& w, const std::vector<int>& counts) {
  std::vector<double> out;
  size_t l = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    double t = k == 0 ? w.embedding_s : 0;
    if (k + 1 == counts.size()) t += w.logits_s;
    for (int i = 0; i < counts[k]; ++i) t += w.layer_s[l++];
    out.push_back(t);
  }
  PLANSIM_ASSERT(l == w.layer_s.size(), "piece counts must add up to the layers");
  return out;
}

std::vector<int> balanced_partition(const LayerWork& w, int pieces) {
  const int n = static_cast<int>(w.layer_s.size());
  PLANSIM_ASSERT(pieces >= 1 && n >= pieces, "fewer layers than pieces");
  std::vector<double> prefix(static_cast<size_t>(n) + 1, 0);
  for (int i = 0; i < n; ++i) prefix[static_cast<size_t>(i) + 1] = prefix[static_cast<size_t>(i)] + w.layer_s[static_cast<size_t>(i)];
  auto cost = [&](int k, int from, int to) {  // piece k holds layers [from, to)
    double t = prefix[static_cast<size_t>(to)] - prefix[static_cast<size_t>(from)];
    if (k == 0) t += w.embedding_s;
    if (k == pieces - 1) t += w.logits_s;
    return t;
  };
  // best[k][i]: pieces 0..k over layers [0, i): (heaviest piece, sum of squares), lexicographic.
  struct Value {
    double max = std::numeric_limits<double>::infinity();
    double squares = 0;
    int cut = -1;
  };
  auto better = [](double m1, double s1, const Value& v) {
    constexpr double kRel = 1e-12;  // equal heaviest pieces compare by evenness
    if (m1 < v.max * (1 - kRel)) return true;
    return m1 <= v.max * (1 + kRel) && s1 < v.squares;
  };
  std::vector<std::vector<Value>> best(static_cast<size_t>(pieces), std::vector<Value>(static_cast<size_t>(n) + 1));
  for (int i = 1; i <= n - pieces + 1; ++i) {
    const double c = cost(0, 0, i);
    best[0][static_cast<size_t>(i)] = {c, c * c, 0};
  }
  for (int k = 1; k < pieces; ++k)
    for (int i = k + 1; i <= n - (pieces - 1 - k); ++i)
      for (int j = k; j < i; ++j) {
        const Value& prev = best[static_cast<size_t>(k) - 1][static_cast<size_t>(j)];
        if (prev.cut < 0) continue;
        const double c = cost(k, j, i);
        const double m = std::max(prev.max, c), sq = prev.squares + c * c;
        Value& cur = best[static_cast<size_t>(k)][static_cast<size_t>(i)];
        if (better(m, sq, cur)) cur = {m, sq, j};
      }
  std::vector<int> counts(static_cast<size_t>(pieces));
  int end = n;
  for (int k = pieces - 1; k >= 0; --k) {
    const int start = best[static_cast<size_t>(k)][static_cast<size_t>(end)].cut;
    counts[static_cast<size_t>(k)] = end - start;
    end = start;
  }
  return counts;
}

}  // namespace plansim::advise
