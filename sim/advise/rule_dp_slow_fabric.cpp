// dp-slow-fabric: data parallelism (DDP or ZeRO/FSDP) of a large model whose gradient reduction (or
// parameter all-gather) is not overlapped with compute, or uses a bucket size far from NCCL's sweet
// spot (below 4 MiB: latency-bound; above 512 MiB: nothing starts until most of backward is done).
// Fixes tried: overlap on with Megatron/DDP's 25 MiB bucket (and prefetched parameter gathers under ZeRO-3).
#include <fmt/format.h>

#include "sim/advise/placement.hpp"
#include "sim/advise/rule.hpp"
#include "sim/plan/finetune.hpp"

namespace plansim::advise {

std::vector<Finding> check_dp_slow_fabric(const LintContext& c) {
  const Scenario& s = c.scenario;
  const TrainingSpec& t = s.training;
  // The parameters whose gradients DP reduces: all of them, or the trained ones of a fine-tune.
  const double params_b = trained_parameters(s) / 1e9;
  const double share = exposed_share(c.report, Dim::dp);
  if (s.parallel.dp <= 1 || params_b < c.th.dp_min_params_b || share <= c.th.dp_exposed) return {};
  const double bucket_mib = t.grad_bucket.value() / 1048576.0;
  const bool bad_bucket = bucket_mib < 4 || bucket_mib > 512;
  const bool no_overlap = !t.overlap.grad_reduce || (s.parallel.zero >= 3 && !t.overlap.param_gather);
  if (!bad_bucket && !no_overlap) return {};
  Finding f;
  f.rule = "dp-slow-fabric";
  f.what = fmt::format("{:.1f} B trained parameters, DP={} (ZeRO-{}): {}", params_b, s.parallel.dp, s.parallel.zero,
                       no_overlap ? "gradient reduction not overlapped with backward"
                                  : fmt::format("gradient bucket {:.1f} MiB", bucket_mib));
  f.where = "DP group " + place_group(s, c.topology, kDenseDataParallel).describe();
  f.why = fmt::format("exposed DP communication is {:.3f} s = {:.0f} % of the iteration",
                      c.report.exposed_comm_s[static_cast<size_t>(Dim::dp)], 100 * share);
  f.candidates.push_back({"training.overlap.grad_reduce=true", "training.overlap.param_gather=true",
                          "training.grad_bucket=25MiB"});
  return {f};
}

}  // namespace plansim::advise
