// tp-slow-link (SEEDS anti-pattern 1, "TP=8 across nodes over Ethernet: GPUs wait 80 % of the time"):
// a TP group whose ring crosses Ethernet or PCIe, or spans NVLink islands. TP all-reduces run twice per
// layer per micro-batch in forward and backward, on the critical path, so they need the fastest link.
// Fixes tried: the rank order that keeps TP inside an NVLink island (when it fits); a smaller TP that
// fits the island (or TP=1 on a PCIe box), its factor moved to DP (also with ZeRO-1) or to PP.
#include <fmt/format.h>

#include "sim/advise/placement.hpp"
#include "sim/advise/rule.hpp"

namespace plansim::advise {

std::vector<Finding> check_tp_slow_link(const LintContext& c) {
  const ParallelSpec& p = c.scenario.parallel;
  if (p.tp <= 1) return {};
  const GroupPlacement g = place_group(c.scenario, c.topology, {Dim::tp});
  const bool slow = g.uses(LinkKind::ethernet) || g.uses(LinkKind::pcie) || g.islands > 1;
  if (!slow) return {};
  const int island = island_size(c.topology);
  const bool nvlink = island_is_nvlink(c.topology);
  Finding f;
  f.rule = "tp-slow-link";
  f.what = fmt::format("TP={} group communicates over {}", p.tp,
                       g.uses(LinkKind::ethernet)     ? "Ethernet"
                       : g.islands > 1                ? "the inter-server fabric"
                                                      : "PCIe");
  f.where = "TP group " + g.describe();
  f.why = fmt::format(
      "TP all-reduces (2 per layer per micro-batch, forward and backward) sit on the critical path; "
      "exposed TP communication is {:.3f} s per rank = {:.0f} % of the {:.3f} s iteration",
      c.report.exposed_comm_s[static_cast<size_t>(Dim::tp)], 100 * exposed_share(c.report, Dim::tp),
      c.report.iteration.seconds());
  if (nvlink && p.tp <= island && island % p.tp == 0) {
    std::array<Dim, 5> order{Dim::tp};
    size_t k = 1;
    for (Dim d : p.order)
      if (d != Dim::tp) order[k++] = d;
    if (order != p.order) f.candidates.push_back({"parallel.order=" + order_value(order)});
  }
  int t = nvlink ? std::min(p.tp / 2, island) : 1;
  while (t > 1 && p.tp % t != 0) --t;
  if (t >= 1 && t < p.tp) {
    const int k = p.tp / t;
    // DP takes the factor; the micro-batch shrinks by it when the global batch would not divide.
    const int mb = c.scenario.training.micro_batch;
    const int64_t mb_new = mb % k == 0 ? mb / k : mb;
    f.candidates.push_back({set_int("parallel.tp", t), set_int("parallel.dp", int64_t{p.dp} * k),
                            set_int("training.micro_batch", mb_new)});
    f.candidates.push_back({set_int("parallel.tp", t), set_int("parallel.dp", int64_t{p.dp} * k),
                            set_int("training.micro_batch", mb_new), set_int("parallel.zero", std::max(1, p.zero))});
    f.candidates.push_back({set_int("parallel.tp", t), set_int("parallel.pp", int64_t{p.pp} * k)});
  }
  return {f};
}

}  // namespace plansim::advise
