// Text and JSON for `plansim search`: the top plans with the figures that explain the ranking.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/advise/search.hpp"

namespace plansim::advise {

std::string plan_label(const Scenario& s) {
  const auto& p = s.parallel;
  std::string l = fmt::format("TP{} PP{} DP{}", p.tp, p.pp, p.dp);
  if (p.cp > 1) l += fmt::format(" CP{}", p.cp);
  if (p.ep > 1) l += fmt::format(" EP{}", p.ep);
  if (p.ep > 1 && p.experts_folded()) l += " ETP1";  // Megatron's expert_tensor_parallel_size 1: folded experts
  l += fmt::format(" mb{} {}{} rc:{} ZeRO-{}", s.training.micro_batch, s.schedule.kind,
                   s.schedule.virtual_stages > 1 ? fmt::format("/v{}", s.schedule.virtual_stages) : "",
                   to_string(s.training.recompute), p.zero);
  return l;
}

namespace {

// What separates a plan from the best: the largest of the differences in exposed communication
// per dimension and bubble time, in seconds per iteration.
std::string why(const SearchPlan& p, const SearchPlan& best, double capacity_gib) {
  const auto& m = p.metrics;
  std::string s = "exposed comm";
  for (size_t d = 0; d < 5; ++d)
    if (m.exposed_comm_s[d] > 0) s += fmt::format(" {} {:.3f} s", dim_names()[d], m.exposed_comm_s[d]);
  if (s == "exposed comm") s += " none";
  s += fmt::format("; bubble {:.1f} %; memory {:.1f} GiB, headroom {:.1f} GiB; TP {}", 100 * m.bubble_fraction,
                   m.memory_peak_gib, capacity_gib - m.memory_peak_gib,
                   p.tp_inside_server ? "inside a server" : "across servers");
  if (&p == &best) return s;
  std::string reason = "compute";
  double gap = m.iteration_s - best.metrics.iteration_s;
  double largest = 0;
  for (size_t d = 0; d < 5; ++d) {
    const double diff = m.exposed_comm_s[d] - best.metrics.exposed_comm_s[d];
    if (diff > largest) largest = diff, reason = fmt::format("{} communication", dim_names()[d]);
  }
  const double bubble_diff = m.bubble_fraction * m.iteration_s - best.metrics.bubble_fraction * best.metrics.iteration_s;
  if (bubble_diff > largest) largest = bubble_diff, reason = "pipeline bubble";
  return s + fmt::format("; {:.3f} s slower than #1, most of it {}", gap, reason);
}

}  // namespace

std::string search_text(const SearchResult& r, int top) {
  std::string out = fmt::format(
      "search {} on {} GPUs: {} plans enumerated, {} pruned by the memory model, {} pruned by the lower bound, {} "
      "simulated ({} over memory)\n\n",
      r.scenario, r.gpus, r.enumerated, r.pruned, r.pruned_bound, r.simulated, r.oom);
  if (r.ranked.empty()) return out + "no plan fits in memory\n";
  const double capacity = r.ranked.front().metrics.hbm_capacity_gib;
  out += fmt::format("{:>3}  {:<52} {:>12} {:>9} {:>6}\n", "#", "plan", "tokens/s", "iter_s", "MFU%");
  const size_t n = std::min(r.ranked.size(), static_cast<size_t>(std::max(0, top)));
  for (size_t i = 0; i < n; ++i) {
    const auto& p = r.ranked[i];
    out += fmt::format("{:>3}  {:<52} {:>12.0f} {:>9.4f} {:>6.1f}\n", i + 1, p.label,
                       p.metrics.tokens_per_s, p.metrics.iteration_s, 100 * p.metrics.mfu);
    out += "     why: " + why(p, r.ranked.front(), capacity) + "\n";
  }
  std::string sets;
  for (const auto& s : r.ranked.front().sets) sets += " --set " + s;
  out += "\nbest plan:" + sets + "\n";
  return out;
}

std::string search_json(const SearchResult& r, int top) {
  nlohmann::ordered_json j;
  j["scenario"] = r.scenario;
  j["gpus"] = r.gpus;
  j["enumerated"] = r.enumerated;
  j["pruned"] = r.pruned;
  j["pruned_bound"] = r.pruned_bound;
  j["simulated"] = r.simulated;
  j["oom"] = r.oom;
  j["wall_s"] = r.wall_s;
  j["plans"] = nlohmann::ordered_json::array();
  const size_t n = std::min(r.ranked.size(), static_cast<size_t>(std::max(0, top)));
  for (size_t i = 0; i < n; ++i) {
    const auto& p = r.ranked[i];
    nlohmann::ordered_json x;
    x["rank"] = i + 1;
    x["plan"] = p.label;
    x["sets"] = p.sets;
    x["tp_inside_server"] = p.tp_inside_server;
    x["estimated_memory_GiB"] = p.estimated_memory_gib;
    if (p.bound_s > 0) x["iteration_lower_bound_s"] = p.bound_s;
    x["metrics"] = nlohmann::ordered_json::parse(metrics_json(p.metrics));
    j["plans"].push_back(x);
  }
  return j.dump(2) + "\n";
}

}  // namespace plansim::advise
