// Every algorithm x every op it supports x group sizes (1, 2, 3, 5, 8, 12, 16: non-powers of two and
// 1) x roots x host layouts ends with exactly the right data under the reference executor.
#include <catch2/catch.hpp>

#include "sim/coll/algorithm.hpp"
#include "sim/coll/reference_executor.hpp"

using namespace plansim;

namespace {
const CollOp kOps[] = {CollOp::all_reduce, CollOp::all_gather, CollOp::reduce_scatter,
                       CollOp::broadcast,  CollOp::reduce,     CollOp::gather,
                       CollOp::scatter,    CollOp::all_to_all, CollOp::send_recv};

bool rooted(CollOp op) {
  return op == CollOp::broadcast || op == CollOp::reduce || op == CollOp::gather || op == CollOp::scatter;
}
}  // namespace

TEST_CASE("reference executor: every algorithm moves exactly the right data", "[coll]") {
  const AlgorithmRegistry reg = make_default_registry();
  int checked = 0;
  for (const auto& algo : reg.all())
    for (CollOp op : kOps) {
      if (!algo->supports(op)) continue;
      for (int n : {1, 2, 3, 5, 8, 12, 16}) {
        if (op == CollOp::send_recv && n != 2) continue;
        for (int per_host : {n, 4, 2, 1}) {
          if (per_host < 1 || n % per_host != 0) continue;
          for (int root : {0, n - 1, n / 2}) {
            if (!rooted(op) && root != 0) continue;
            GroupShape g{n, root, {}};
            for (int r = 0; r < n; ++r) g.host_of_rank.push_back(r / per_host);
            if (!algo->shape_ok(g)) continue;
            INFO(algo->name() << " " << to_string(op) << " n=" << n << " per_host=" << per_host << " root=" << root);
            const ExecutionCheck res = run_reference(op, algo->expand(op, g), root);
            INFO(res.error);
            CHECK(res.ok);
            ++checked;
          }
        }
      }
    }
  CHECK(checked > 150);
}

TEST_CASE("reference executor: catches wrong schedules", "[coll]") {
  // A ring all-reduce missing its last all-gather step leaves one rank without a chunk.
  const AlgorithmRegistry reg = make_default_registry();
  ChunkSchedule s = reg.find("ring")->expand(CollOp::all_reduce, GroupShape::flat(4));
  s.steps.pop_back();
  CHECK_FALSE(run_reference(CollOp::all_reduce, s, 0).ok);
  // Reducing a chunk twice into the same place double counts.
  ChunkSchedule d{2, 2, 1, {}};
  d.add_step().xfers.push_back({0, 1, 0, true});
  d.add_step().xfers.push_back({0, 1, 0, true});
  d.add_step().xfers.push_back({1, 0, 0, false});
  const auto r = run_reference(CollOp::all_reduce, d, 0);
  CHECK_FALSE(r.ok);
  CHECK_THAT(r.error, Catch::Contains("[2,1]"));
  // Sending a chunk one does not hold.
  ChunkSchedule e{2, 2, 2, {}};
  e.add_step().xfers.push_back({1, 0, 0, false});
  CHECK_FALSE(run_reference(CollOp::all_gather, e, 0).ok);
}

TEST_CASE("ring all-reduce of 10 GB on 8 GPUs sends 17.5 GB per GPU (naive: 70 GB)", "[coll][seed]") {
  const AlgorithmRegistry reg = make_default_registry();
  const auto s = reg.find("ring")->expand(CollOp::all_reduce, GroupShape::flat(8));
  for (double b : bytes_sent_per_participant(s, 10e9)) CHECK(b == Approx(17.5e9));
  // Naive: every GPU sends its full buffer to each of the 7 others.
  CHECK(10e9 * 7 / 17.5e9 == Approx(4.0));
  CHECK(s.steps.size() == 14u);  // 2(n-1) steps
}
