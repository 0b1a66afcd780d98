// tp-rank-order (SEEDS anti-pattern 3, "TP group across nodes"): the scenario's `order` maps a TP
// group onto several servers although TP ≤ GPUs per server, so its all-reduces leave NVLink. The fix
// is the rank order with TP innermost (consecutive ranks = one server), nothing else changes.
#include <fmt/format.h>

#include "sim/advise/placement.hpp"
#include "sim/advise/rule.hpp"

namespace plansim::advise {

std::vector<Finding> check_tp_rank_order(const LintContext& c) {
  const ParallelSpec& p = c.scenario.parallel;
  if (p.tp <= 1) return {};
  const GroupPlacement g = place_group(c.scenario, c.topology, {Dim::tp});
  const int island = island_size(c.topology);
  if (g.islands <= 1 || p.tp > island || island % p.tp != 0) return {};
  std::array<Dim, 5> order{Dim::tp};
  size_t k = 1;
  for (Dim d : p.order)
    if (d != Dim::tp) order[k++] = d;
  Finding f;
  f.rule = "tp-rank-order";
  f.what = fmt::format("TP={} group spans {} servers although a server has {} GPUs", p.tp, g.hosts, island);
  f.where = "TP group " + g.describe() + fmt::format(" (order {})", order_value(p.order));
  f.why = fmt::format("the rank order puts {} innermost, so TP traffic crosses the fabric instead of NVLink; "
                      "exposed TP communication is {:.0f} % of the iteration",
                      to_string(p.order[0]), 100 * exposed_share(c.report, Dim::tp));
  f.candidates.push_back({"parallel.order=" + order_value(order)});
  return {f};
}

}  // namespace plansim::advise
