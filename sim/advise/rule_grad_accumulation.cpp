// grad-accumulation (SEEDS anti-pattern 5, "gradient accumulation when the batch fits"): without a
// pipeline, several micro-batches per iteration only serialise smaller, less efficient GEMMs. Fixes
// tried: the whole per-rank batch as one micro-batch, then halves of it; the engine keeps only fixes
// that the simulated memory says fit.
#include <fmt/format.h>

#include "sim/advise/rule.hpp"

namespace plansim::advise {

std::vector<Finding> check_grad_accumulation(const LintContext& c) {
  const Scenario& s = c.scenario;
  const ParallelSpec& p = s.parallel;
  const int m = s.micro_batches();
  if (p.pp != 1 || m <= 1 || c.report.oom) return {};
  const int64_t per_rank = s.training.global_batch / p.dp;
  Finding f;
  f.rule = "grad-accumulation";
  f.what = fmt::format("{} accumulation steps of micro-batch {} without a pipeline", m, s.training.micro_batch);
  f.where = "every rank";
  f.why = fmt::format("peak memory is {:.1f} of {:.1f} GiB; larger micro-batches run larger GEMMs and fewer "
                      "kernel launches, and nothing needs the accumulation",
                      c.report.memory_peak.value() / 1073741824.0, c.report.hbm_capacity.value() / 1073741824.0);
  for (int64_t b = per_rank; b > s.training.micro_batch; b /= 2)
    if (per_rank % b == 0) f.candidates.push_back({set_int("training.micro_batch", b)});
  return {f};
}

}  // namespace plansim::advise
