#include "sim/plan/p2p_pairs.hpp"

#include <algorithm>
#include <tuple>

namespace plansim {

std::vector<P2pPair> match_send_recv(const CompiledPlan& plan) {
  struct End {
    uint32_t src, dst, tag, program, op;
  };
  std::vector<End> ends;
  for (size_t r = 0; r < plan.programs.size(); ++r) {
    const Program& p = plan.programs[r];
    for (uint32_t i = 0; i < p.ops.size(); ++i) {
      const ProgramOp& op = p.ops[i];
      if (op.kind != OpKind::send && op.kind != OpKind::recv) continue;
      const bool send = op.kind == OpKind::send;
      ends.push_back({send ? p.rank : op.peer, send ? op.peer : p.rank, op.tag, static_cast<uint32_t>(r), i});
    }
  }
  auto key = [](const End& e) { return std::tie(e.src, e.dst, e.tag); };
  std::sort(ends.begin(), ends.end(), [](const End& a, const End& b) {
    return std::tie(a.src, a.dst, a.tag, a.program, a.op) < std::tie(b.src, b.dst, b.tag, b.program, b.op);
  });
  std::vector<P2pPair> pairs;
  for (size_t k = 0; k < ends.size();) {
    P2pPair& pair = pairs.emplace_back();
    pair.src = ends[k].src, pair.dst = ends[k].dst, pair.tag = ends[k].tag;
    const auto first = key(ends[k]);
    for (; k < ends.size() && key(ends[k]) == first; ++k) pair.ends.push_back({ends[k].program, ends[k].op});
  }
  return pairs;
}

}  // namespace plansim
