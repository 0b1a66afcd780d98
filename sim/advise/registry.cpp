// The lint rules, one line each (id, what it catches, the check in rule_<id>.cpp).
#include <fmt/format.h>

#include "sim/advise/rule.hpp"

namespace plansim::advise {

const std::vector<Rule>& lint_rules() {
  static const std::vector<Rule> rules = {
      {"tp-slow-link", "tensor parallelism over Ethernet/PCIe or across NVLink islands", check_tp_slow_link},
      {"tp-rank-order", "rank order puts a TP group across servers although it fits in one", check_tp_rank_order},
      {"pipeline-bubble", "pipeline with too few micro-batches (bubble overhead above threshold)", check_pipeline_bubble},
      {"small-batch-dp", "small per-GPU batch with large DP: gradient communication dominates", check_small_batch_dp},
      {"grad-accumulation", "gradient accumulation although the whole batch fits in memory", check_grad_accumulation},
      {"dp-slow-fabric", "DP/FSDP of a large model without overlap or with a bad bucket size", check_dp_slow_fabric},
      {"unbalanced-stages", "pipeline stages with unequal work (embedding/logits stage)", check_unbalanced_stages},
      {"ep-cp-placement", "EP all-to-all or CP ring across servers when it fits inside one", check_ep_cp_placement},
      {"oom", "the plan does not fit in GPU memory", check_oom},
      {"finetune-slow-fabric", "full fine-tune whose gradient reduction is exposed (LoRA reduces megabytes)",
       check_finetune_fabric},
  };
  return rules;
}

bool LintThresholds::set(const std::string& name, double value) {
  if (name == "bubble_overhead") bubble_overhead = value;
  else if (name == "small_batch_dp") small_batch_dp = value;
  else if (name == "small_batch_min_dp") small_batch_min_dp = static_cast<int>(value);
  else if (name == "dp_exposed") dp_exposed = value;
  else if (name == "dp_min_params_b") dp_min_params_b = value;
  else if (name == "stage_imbalance") stage_imbalance = value;
  else if (name == "min_gain") min_gain = value;
  else return false;
  return true;
}

std::map<std::string, double> LintThresholds::values() const {
  return {{"bubble_overhead", bubble_overhead}, {"small_batch_dp", small_batch_dp},
          {"small_batch_min_dp", small_batch_min_dp}, {"dp_exposed", dp_exposed},
          {"dp_min_params_b", dp_min_params_b}, {"stage_imbalance", stage_imbalance}, {"min_gain", min_gain}};
}

std::string set_int(const char* key, int64_t v) { return fmt::format("{}={}", key, v); }

double exposed_share(const Report& r, Dim d) {
  const double it = r.iteration.seconds();
  return it > 0 ? r.exposed_comm_s[static_cast<size_t>(d)] / it : 0;
}

}  // namespace plansim::advise
