// unbalanced-stages: pipeline stages with unequal work. Fires when the slowest stage's simulated busy
// compute is above the mean stage's by `stage_imbalance`. The usual cause: the embedding on the first
// stage and the logits GEMM (h × vocab) + loss on the last, on top of as many layers as the others
// (the balanced default partition, or a `parallel.stage_layers` that ignores them). The main fix is a
// `parallel.stage_layers` that evens out the pieces by the compute model's time per layer, embedding
// and logits (stage_balance.hpp: the end stages get fewer layers); also tried: half the stages (DP or
// TP doubled), so the extra work is a smaller share. Every candidate is simulated; the best is reported.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "sim/advise/rule.hpp"
#include "sim/advise/stage_balance.hpp"
#include "sim/plan/layer_partition.hpp"
#include "sim/sched/registry.hpp"

namespace plansim::advise {
namespace {
std::string list(const std::vector<int>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? "," : "") + std::to_string(v[i]);
  return out + "]";
}
}  // namespace

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

  // The actual partition: pieces (virtual stages) in layer order, and the ones this stage holds.
  const PipelineLayout lay = schedule_layout(s.schedule.kind, {p.pp, s.micro_batches(), s.schedule.virtual_stages});
  const LayerPartition part(s.model.layers, lay.pieces(), p.stage_layers, p.split_embedding, p.split_loss);
  std::vector<int> counts;
  for (int k = 0; k < lay.pieces(); ++k) counts.push_back(part.count(k));
  const int stage = st[worst].stage;
  std::string layers;
  bool first = false, last = false;
  for (int ch = 0; ch < lay.chunks(); ++ch) {
    const int k = lay.piece(stage, ch);
    layers += fmt::format("{}layers {}-{}", ch ? " and " : "", part.first(k), part.first(k) + part.count(k) - 1);
    first = first || k == 0;
    last = last || k == lay.pieces() - 1;
  }
  const LayerWork work = estimate_layer_work(s, c.topology.gpu_spec());
  const double layer = std::accumulate(work.layer_s.begin(), work.layer_s.end(), 0.0) / s.model.layers;
  const std::vector<int> fix = balanced_partition(work, lay.pieces());
  const auto now_work = piece_work(work, counts), fix_work = piece_work(work, fix);
  const double now_max = *std::max_element(now_work.begin(), now_work.end());
  const double fix_max = *std::max_element(fix_work.begin(), fix_work.end());

  Finding f;
  f.rule = "unbalanced-stages";
  f.what = fmt::format("stage {} is busy {:.0f} % longer than the mean stage (threshold {:.0f} %)", stage,
                       100 * excess, 100 * c.th.stage_imbalance);
  f.where = fmt::format("stage {} (rank {}): {}{}{}; stage_layers {}{}", stage, st[worst].rank, layers,
                        first ? " + the embedding" : "", last ? " + the logits and loss" : "", list(counts),
                        p.stage_layers.empty() ? " (the balanced default)" : "");
  std::string cause;
  if (first || last) {
    const std::string what = last && first ? "the embedding, the logits GEMM and loss"
                             : last        ? "the logits GEMM and loss"
                                           : "the embedding";
    cause = fmt::format("{} (vocab {} × hidden {}: {:.1f} layer-times per micro-batch by the compute model) add work "
                        "only this stage does",
                        what, s.model.vocab, s.model.hidden,
                        ((last ? work.logits_s : 0) + (first ? work.embedding_s : 0)) / layer);
  } else {
    cause = "its layers cost more than the other stages' (layer counts, or MoE layers)";
  }
  f.why = fmt::format("{}; every other stage waits for it. A partition by compute time, stage_layers {}, takes the "
                      "heaviest piece from {:.1f} to {:.1f} layer-times",
                      cause, list(fix), now_max / layer, fix_max / layer);
  if (fix != counts) f.candidates.push_back({"parallel.stage_layers=" + list(fix)});
  if (p.pp % 2 == 0) {
    std::vector<std::string> reset;  // explicit counts no longer fit half the stages: back to the default
    if (!p.stage_layers.empty()) reset.push_back("parallel.stage_layers=[]");
    auto halve = [&](const char* key, int64_t v) {
      std::vector<std::string> fixes{set_int("parallel.pp", p.pp / 2), set_int(key, v)};
      fixes.insert(fixes.end(), reset.begin(), reset.end());
      f.candidates.push_back(fixes);
    };
    halve("parallel.dp", int64_t{p.dp} * 2);
    halve("parallel.tp", int64_t{p.tp} * 2);
  }
  return {f};
}

}  // namespace plansim::advise
