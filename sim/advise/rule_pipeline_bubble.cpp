// pipeline-bubble (SEEDS anti-pattern 4, "16 stages × 4 micro-batches": (p−1)/m = 375 % bubble
// overhead): the simulated bubble overhead (idle / busy compute, README "Definitions") is above the
// threshold. Fixes tried: enough micro-batches for (p−1)/m ≤ threshold (raising the global batch, or
// micro_batch=1 at the same global batch), the interleaved schedule, half the stages (DP doubled).
#include <fmt/format.h>

#include <cmath>

#include "sim/advise/rule.hpp"

namespace plansim::advise {

std::vector<Finding> check_pipeline_bubble(const LintContext& c) {
  const Scenario& s = c.scenario;
  const ParallelSpec& p = s.parallel;
  if (p.pp <= 1 || c.report.bubble_overhead <= c.th.bubble_overhead) return {};
  const int m = s.micro_batches();
  Finding f;
  f.rule = "pipeline-bubble";
  f.what = fmt::format("{} stages × {} micro-batches: bubble overhead {:.0f} % (threshold {:.0f} %)", p.pp, m,
                       100 * c.report.bubble_overhead, 100 * c.th.bubble_overhead);
  f.where = fmt::format("every pipeline ({} stages, schedule {})", p.pp, s.schedule.kind);
  f.why = fmt::format("a {} pipeline idles (p−1) slots per flush: (p−1)/m = {}/{} = {:.0f} % of the busy time "
                      "(simulated: {:.0f} % of the iteration is bubble)",
                      s.schedule.kind, p.pp - 1, m, 100.0 * (p.pp - 1) / m, 100 * c.report.bubble_fraction);
  const int target = static_cast<int>(std::ceil((p.pp - 1) / c.th.bubble_overhead));
  const int m_new = ((target + p.pp - 1) / p.pp) * p.pp;
  if (m_new > m)
    f.candidates.push_back(
        {set_int("training.global_batch", int64_t{m_new} * s.training.micro_batch * p.dp)});
  if (s.training.micro_batch > 1) f.candidates.push_back({set_int("training.micro_batch", 1)});
  if (s.schedule.kind != "interleaved" && m % p.pp == 0 && s.model.layers % (2 * p.pp) == 0)
    f.candidates.push_back({"schedule.kind=interleaved", set_int("schedule.virtual_stages", 2)});
  if (p.pp % 2 == 0)
    f.candidates.push_back({set_int("parallel.pp", p.pp / 2), set_int("parallel.dp", int64_t{p.dp} * 2)});
  return {f};
}

}  // namespace plansim::advise
