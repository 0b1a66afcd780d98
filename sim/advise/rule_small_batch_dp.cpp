// small-batch-dp (SEEDS anti-pattern 2, "global batch 64 on 128 GPUs"): many DP ranks, each with
// little work, so the gradient reduction cannot hide behind the backward pass. Efficiency estimate:
// 1 − exposed DP communication / iteration. Fixes tried: a 4× or 8× larger global batch (the same
// gradient bytes amortised over more tokens); DP traded for TP inside the server (fewer, larger DP
// replicas each doing more work per GPU). Fine-tuning: the payload is the trained parameters' gradients
// (LoRA: megabytes), so a LoRA plan's reduction hides and the rule stays silent (tested).
#include <fmt/format.h>

#include "sim/advise/placement.hpp"
#include "sim/advise/rule.hpp"
#include "sim/plan/finetune.hpp"

namespace plansim::advise {

std::vector<Finding> check_small_batch_dp(const LintContext& c) {
  const Scenario& s = c.scenario;
  const ParallelSpec& p = s.parallel;
  const double share = exposed_share(c.report, Dim::dp);
  if (p.dp < c.th.small_batch_min_dp || share <= c.th.small_batch_dp) return {};
  const double seq_per_gpu = static_cast<double>(s.training.global_batch) / p.world();
  Finding f;
  f.rule = "small-batch-dp";
  f.what = fmt::format("global batch {} on {} GPUs (DP={}): {:.2f} sequences = {:.0f} tokens per GPU per iteration, "
                       "{:.3g} GB of gradients reduced",
                       s.training.global_batch, p.world(), p.dp, seq_per_gpu,
                       seq_per_gpu * static_cast<double>(s.model.seq_len),
                       trained_parameters(s) * s.training.grad_bytes / 1e9);
  f.where = "DP group " + place_group(s, c.topology, kDenseDataParallel).describe();
  f.why = fmt::format("exposed DP communication is {:.3f} s = {:.0f} % of the iteration: DP efficiency ≈ {:.0f} %",
                      c.report.exposed_comm_s[static_cast<size_t>(Dim::dp)], 100 * share, 100 * (1 - share));
  for (int k : {4, 8}) f.candidates.push_back({set_int("training.global_batch", s.training.global_batch * k)});
  const int island = island_size(c.topology);
  for (int k : {2, 4})
    if (p.tp * k <= island && p.dp % k == 0)
      f.candidates.push_back({set_int("parallel.tp", int64_t{p.tp} * k), set_int("parallel.dp", p.dp / k)});
  return {f};
}

}  // namespace plansim::advise
