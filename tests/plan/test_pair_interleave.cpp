#include <catch2/catch.hpp>

#include "sim/plan/pair_interleave.hpp"

using namespace plansim;

namespace {
uint32_t add(Program& p, OpKind k, std::vector<uint32_t> deps, uint32_t seq = 0, int mb = 0) {
  ProgramOp op;
  op.kind = k;
  op.stream = k == OpKind::compute ? StreamKind::compute : StreamKind::tp_comm;
  op.group = 0;
  op.seq = seq;
  op.micro_batch = mb;
  op.dep_begin = static_cast<uint32_t>(p.deps.size());
  op.dep_count = static_cast<uint32_t>(deps.size());
  p.deps.insert(p.deps.end(), deps.begin(), deps.end());
  p.ops.push_back(op);
  return static_cast<uint32_t>(p.ops.size() - 1);
}
}  // namespace

TEST_CASE("pair interleave: compute ops alternate, each with the communication after it", "[plan][dualpipe]") {
  // Op 0 precedes the pair. Forward (micro-batch 1): recv, c, coll, c, coll. Backward (2): c, coll, c.
  Program p;
  const uint32_t before = add(p, OpKind::compute, {}, 0, -1);
  const uint32_t first = 1;
  const uint32_t r = add(p, OpKind::recv, {}, 0, 1);
  const uint32_t f1 = add(p, OpKind::compute, {r, before}, 0, 1);
  const uint32_t fa = add(p, OpKind::collective, {f1}, 0, 1);
  const uint32_t f2 = add(p, OpKind::compute, {fa}, 0, 1);
  add(p, OpKind::collective, {f2}, 1, 1);
  const uint32_t mid = 6;
  const uint32_t b1 = add(p, OpKind::compute, {}, 0, 2);
  const uint32_t ba = add(p, OpKind::collective, {b1}, 2, 2);
  add(p, OpKind::compute, {ba}, 0, 2);
  const std::vector<uint32_t> moved = interleave_pair(p, first, mid);
  // New order: [recv, f1, fa] [b1, ba] [f2, fcoll] [b2].
  std::vector<int> mbs;
  for (const auto& op : p.ops) mbs.push_back(op.micro_batch);
  CHECK(mbs == std::vector<int>{-1, 1, 1, 1, 2, 2, 1, 1, 2});
  CHECK(moved[b1 - first] == 4);
  CHECK(moved[f2 - first] == 6);
  // Dependencies follow their ops and point backwards; the op before the pair keeps its index.
  for (uint32_t i = 0; i < p.ops.size(); ++i)
    for (uint32_t k = 0; k < p.ops[i].dep_count; ++k) CHECK(p.deps[p.ops[i].dep_begin + k] < i);
  CHECK(p.deps[p.ops[2].dep_begin + 1] == before);
  CHECK(p.deps[p.ops[6].dep_begin] == 3);  // f2 waits for the forward's collective, now at 3
  // Sequence numbers on the group increase in the new program order: fa 0, ba 1, fcoll 2.
  std::vector<uint32_t> seqs;
  for (const auto& op : p.ops)
    if (op.kind == OpKind::collective) seqs.push_back(op.seq);
  CHECK(seqs == std::vector<uint32_t>{0, 1, 2});
}
