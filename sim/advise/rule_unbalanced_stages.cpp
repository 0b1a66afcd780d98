// unbalanced-stages: pipeline stages with unequal work. The loader already requires layers divisible
// by pp·virtual_stages, so what remains is the embedding on the first stage and the logits GEMM
// (h × vocab) plus loss on the last, which set the pipeline's pace. Measured from the simulated busy
// compute per stage. Fixes tried: half the stages (DP or TP doubled), so the extra work is a smaller share.
#include <fmt/format.h>

#include <algorithm>

#include "sim/advise/rule.hpp"

namespace plansim::advise {

std::vector<Finding> check_unbalanced_stages(const LintContext& c) {
  const Scenario& s = c.scenario;
  const ParallelSpec& p = s.parallel;
  const auto& st = c.report.stages;
  if (p.pp <= 1 || st.size() < 2) return {};
  double sum = 0;
  size_t worst = 0;
  for (size_t i = 0; i < st.size(); ++i) {
    sum += st[i].compute_busy.seconds();
    if (st[i].compute_busy > st[worst].compute_busy) worst = i;
  }
  const double mean = sum / static_cast<double>(st.size());
  const double excess = mean > 0 ? st[worst].compute_busy.seconds() / mean - 1 : 0;
  if (excess <= c.th.stage_imbalance) return {};
  Finding f;
  f.rule = "unbalanced-stages";
  f.what = fmt::format("stage {} is busy {:.0f} % longer than the mean stage (threshold {:.0f} %)", worst,
                       100 * excess, 100 * c.th.stage_imbalance);
  f.where = fmt::format("stage {} (rank {}), {} layers per stage", worst, st[worst].rank, s.model.layers / p.pp);
  f.why = fmt::format("{} adds work only that stage does (vocab {} × hidden {}); every other stage waits for it",
                      worst + 1 == st.size() ? "the logits GEMM and loss" : "the embedding", s.model.vocab,
                      s.model.hidden);
  if (p.pp % 2 == 0) {
    f.candidates.push_back({set_int("parallel.pp", p.pp / 2), set_int("parallel.dp", int64_t{p.dp} * 2)});
    f.candidates.push_back({set_int("parallel.pp", p.pp / 2), set_int("parallel.tp", int64_t{p.tp} * 2)});
  }
  return {f};
}

}  // namespace plansim::advise
