// finetune-slow-fabric (SEEDS.md, fine-tuning: "LoRA multi-node: bandwidth is almost irrelevant";
// full fine-tuning multi-node is bandwidth-bound): a fine-tuning job (training.finetune declared) that
// trains every weight of a layer (method full or frozen_layers) and whose data-parallel gradient
// reduction is exposed. Its DP payload is the trained weights' gradients (a 7B full fine-tune: ~14 GB
// per step); LoRA's is its adapters' (~8-14 MB). Fixes tried: LoRA on the attention projections, and on
// all four GEMMs (a different job, parameter-efficient; the finding says so).
#include <fmt/format.h>

#include "sim/advise/placement.hpp"
#include "sim/advise/rule.hpp"
#include "sim/plan/finetune.hpp"

namespace plansim::advise {

std::vector<Finding> check_finetune_fabric(const LintContext& c) {
  const Scenario& s = c.scenario;
  const FinetuneSpec& f = s.training.finetune;
  const double share = exposed_share(c.report, Dim::dp);
  if (!f.declared || f.method == FinetuneMethod::lora || s.parallel.dp <= 1 || share <= c.th.dp_exposed) return {};
  const double payload_gb = trained_parameters(s) * s.training.grad_bytes / 1e9;
  Finding out;
  out.rule = "finetune-slow-fabric";
  out.what = fmt::format("{} fine-tune over DP={}: {:.2f} GB of gradients reduced per step", to_string(f.method),
                         s.parallel.dp, payload_gb);
  out.where = "DP group " + place_group(s, c.topology, kDenseDataParallel).describe();
  out.why = fmt::format("exposed DP communication is {:.3f} s = {:.0f} % of the iteration; LoRA adapters would "
                        "reduce megabytes instead (a parameter-efficient fine-tune: check it suits the task)",
                        c.report.exposed_comm_s[static_cast<size_t>(Dim::dp)], 100 * share);
  out.candidates.push_back({"training.finetune={method: lora, rank: 16, targets: [qkv, proj]}"});
  out.candidates.push_back({"training.finetune={method: lora, rank: 16, targets: [qkv, proj, fc1, fc2]}"});
  return {out};
}

}  // namespace plansim::advise
