// ep-cp-placement: the expert-parallel all-to-all or the context-parallel ring crosses servers although
// TP × (EP or CP) GPUs fit in one, because the rank order puts DP or PP inside. Fixes tried: orders
// with the dimension next to TP inside the server.
#include <fmt/format.h>

#include "sim/advise/placement.hpp"
#include "sim/advise/rule.hpp"

namespace plansim::advise {

namespace {

std::array<Dim, 5> with_front(const std::array<Dim, 5>& order, std::initializer_list<Dim> front) {
  std::array<Dim, 5> out{};
  size_t k = 0;
  for (Dim d : front) out[k++] = d;
  for (Dim d : order)
    if (std::find(front.begin(), front.end(), d) == front.end()) out[k++] = d;
  return out;
}

}  // namespace

std::vector<Finding> check_ep_cp_placement(const LintContext& c) {
  const ParallelSpec& p = c.scenario.parallel;
  const int island = island_size(c.topology);
  std::vector<Finding> out;
  for (Dim d : {Dim::ep, Dim::cp}) {
    const int size = d == Dim::ep ? p.ep : p.cp;
    if (size <= 1 || p.tp * size > island) continue;
    if (d == Dim::ep && p.experts_folded()) continue;  // EP on the experts' own grid: no order places it
    const GroupPlacement g = place_group(c.scenario, c.topology, {d});
    if (g.islands <= 1) continue;
    Finding f;
    f.rule = "ep-cp-placement";
    f.what = fmt::format("{}={} group spans {} servers although TP×{} = {} GPUs fit in one", to_string(d), size,
                         g.hosts, to_string(d), p.tp * size);
    f.where = fmt::format("{} group {} (order {})", to_string(d), g.describe(), order_value(p.order));
    f.why = fmt::format("{} crosses the fabric on every layer; exposed {} communication is {:.0f} % of the iteration",
                        d == Dim::ep ? "the token all-to-all" : "the KV ring", to_string(d),
                        100 * exposed_share(c.report, d));
    for (auto o : {with_front(p.order, {Dim::tp, d}), with_front(p.order, {d, Dim::tp})})
      if (o != p.order) f.candidates.push_back({"parallel.order=" + order_value(o)});
    out.push_back(f);
  }
  return out;
}

}  // namespace plansim::advise
