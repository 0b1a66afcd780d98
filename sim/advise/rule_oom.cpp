// oom: the plan does not fit in GPU memory (simulated peak per stage > HBM). Fixes tried, smallest
// first: one key (selective or full recompute, a higher ZeRO stage, sequence parallelism, half the
// micro-batch), then two (TP or PP doubled, DP halved). The engine reports the fitting fix with the
// fewest changed keys, the fastest among those.
#include <fmt/format.h>

#include "sim/advise/rule.hpp"

namespace plansim::advise {

std::vector<Finding> check_oom(const LintContext& c) {
  if (!c.report.oom) return {};
  const Scenario& s = c.scenario;
  const ParallelSpec& p = s.parallel;
  int worst = 0;
  for (const auto& st : c.report.stages)
    if (st.memory.total() > c.report.stages[static_cast<size_t>(worst)].memory.total()) worst = st.stage;
  Finding f;
  f.rule = "oom";
  f.always_report = true;
  f.what = fmt::format("peak memory {:.1f} GiB exceeds the GPU's {:.1f} GiB", c.report.memory_peak.value() / 1073741824.0,
                       c.report.hbm_capacity.value() / 1073741824.0);
  const auto& m = c.report.stages[static_cast<size_t>(worst)].memory;
  f.where = fmt::format("stage {} (rank {})", worst, c.report.stages[static_cast<size_t>(worst)].rank);
  f.why = fmt::format("weights {:.1f} + gradients {:.1f} + optimizer {:.1f} + activations {:.1f} GiB",
                      m.weights.value() / 1073741824.0, m.gradients.value() / 1073741824.0,
                      m.optimizer.value() / 1073741824.0, m.activations.value() / 1073741824.0);
  if (s.training.recompute == Recompute::none) f.candidates.push_back({"training.recompute=selective"});
  if (s.training.recompute != Recompute::full) f.candidates.push_back({"training.recompute=full"});
  for (int z = p.zero + 1; z <= 3 && p.dp > 1; ++z) f.candidates.push_back({set_int("parallel.zero", z)});
  if (p.tp > 1 && !p.sequence_parallel) f.candidates.push_back({"parallel.sequence_parallel=true"});
  if (s.training.micro_batch > 1) f.candidates.push_back({set_int("training.micro_batch", s.training.micro_batch / 2)});
  if (p.dp % 2 == 0) {
    f.candidates.push_back({set_int("parallel.tp", int64_t{p.tp} * 2), set_int("parallel.dp", p.dp / 2)});
    f.candidates.push_back({set_int("parallel.pp", int64_t{p.pp} * 2), set_int("parallel.dp", p.dp / 2)});
  }
  return {f};
}

}  // namespace plansim::advise
