#include "sim/plan/pair_interleave.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "sim/core/assert.hpp"

namespace plansim {
namespace {
// [start, end) runs of [a, b), each beginning at a compute op (the first also holds the
// communication before the first compute).
std::vector<std::pair<uint32_t, uint32_t>> segments(const Program& p, uint32_t a, uint32_t b) {
  std::vector<std::pair<uint32_t, uint32_t>> seg;
  uint32_t start = a;
  bool seen_compute = false;
  for (uint32_t i = a; i < b; ++i) {
    if (p.ops[i].kind != OpKind::compute) continue;
    if (seen_compute) {
      seg.emplace_back(start, i);
      start = i;
    }
    seen_compute = true;
  }
  seg.emplace_back(start, b);
  return seg;
}
}  // namespace

std::vector<uint32_t> interleave_pair(Program& p, uint32_t first, uint32_t mid) {
  const auto end = static_cast<uint32_t>(p.ops.size());
  PLANSIM_ASSERT(first <= mid && mid <= end, "interleave_pair: bad ranges");
  const auto fs = segments(p, first, mid), bs = segments(p, mid, end);
  std::vector<uint32_t> order;  // new position -> old index
  order.reserve(end - first);
  for (size_t k = 0; k < std::max(fs.size(), bs.size()); ++k)
    for (const auto* seg : {&fs, &bs})
      if (k < seg->size())
        for (uint32_t i = (*seg)[k].first; i < (*seg)[k].second; ++i) order.push_back(i);
  std::vector<uint32_t> new_index(end - first);
  for (uint32_t n = 0; n < order.size(); ++n) new_index[order[n] - first] = first + n;

  const std::vector<ProgramOp> old(p.ops.begin() + first, p.ops.end());
  std::map<uint32_t, std::vector<uint32_t>> seqs;  // group -> the range's sequence numbers, ascending
  for (const ProgramOp& op : old)
    if (op.kind == OpKind::collective) seqs[op.group].push_back(op.seq);
  for (auto& [g, v] : seqs) std::sort(v.begin(), v.end());
  std::map<uint32_t, size_t> used;
  for (uint32_t n = 0; n < order.size(); ++n) {
    ProgramOp op = old[order[n] - first];
    if (op.kind == OpKind::collective) op.seq = seqs[op.group][used[op.group]++];
    for (uint32_t k = 0; k < op.dep_count; ++k) {
      uint32_t& d = p.deps[op.dep_begin + k];
      if (d >= first) d = new_index[d - first];
    }
    p.ops[first + n] = op;
  }
  return new_index;
}

}  // namespace plansim
