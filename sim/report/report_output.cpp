// Report writers: a text summary and the JSON schema (README "plansim run"); the trace: trace_output.cpp.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <nlohmann/json.hpp>

#include "sim/report/report.hpp"

namespace plansim {
namespace {
constexpr std::array<Dim, 5> kDims{Dim::tp, Dim::cp, Dim::ep, Dim::dp, Dim::pp};

nlohmann::json memory_json(const MemoryBreakdown& m) {
  return {{"weights_bytes", m.weights.value()},         {"gradients_bytes", m.gradients.value()},
          {"optimizer_bytes", m.optimizer.value()},     {"activations_bytes", m.activations.value()},
          {"temporary_bytes", m.temporary.value()},     {"total_bytes", m.total().value()}};
}
// README "Definitions": the parts sum to the iteration time.
nlohmann::ordered_json time_breakdown_json(const StageTimeBreakdown& t) {
  nlohmann::ordered_json j{{"compute", t.compute_s}};
  for (Dim d : kDims) j[to_string(d)] = t.exposed_s[static_cast<size_t>(d)];
  j["offload"] = t.offload_s;
  j["bubble"] = t.bubble_s;
  j["idle"] = t.idle_s;
  return j;
}

// `pipeline`: the schedule and its slots, one line each (thousands at large micro-batch counts).
std::string pipeline_json(const Report& r) {
  std::string out = fmt::format(",\n  \"pipeline\": {{\"schedule\": {}, \"stages\": {}, \"chunks\": {}, \"slots\": [",
                                nlohmann::json(r.schedule).dump(), r.stages.size(), r.chunks);
  auto it = std::back_inserter(out);
  for (size_t i = 0; i < r.slots.size(); ++i) {
    const ScheduleSlot& s = r.slots[i];
    fmt::format_to(it,
                   FMT_COMPILE("{}\n    {{\"stage\": {}, \"phase\": \"{}\", \"micro_batch\": {}, \"chunk\": {}, "
                               "\"start_s\": {}, \"end_s\": {}}}"),
                   i == 0 ? "" : ",", s.stage, to_string(s.phase), s.micro_batch, s.chunk, s.start_s, s.end_s);
  }
  out += r.slots.empty() ? "]}" : "\n  ]}";
  return out;
}
}  // namespace

std::string report_json(const Report& r) {
  nlohmann::ordered_json j;
  j["name"] = r.name;
  j["gpu"] = r.gpu;
  j["gpus"] = r.world;
  j["topology_gpus"] = r.topology_gpus > 0 ? r.topology_gpus : static_cast<size_t>(r.world);
  j["micro_batches"] = r.micro_batches;
  j["iteration_time_s"] = r.iteration.seconds();
  j["tokens_per_s"] = r.tokens_per_s;
  j["tflops_per_gpu"] = r.tflops_per_gpu;
  j["hw_tflops_per_gpu"] = r.hw_tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["hfu"] = r.hfu;
  j["bubble_fraction"] = r.bubble_fraction;
  j["bubble_overhead"] = r.bubble_overhead;
  j["overlap_fraction"] = r.overlap_fraction;
  nlohmann::ordered_json exposed;
  for (Dim d : kDims) exposed[to_string(d)] = r.exposed_comm_s[static_cast<size_t>(d)];
  j["exposed_comm_s"] = exposed;
  if (r.offload_bytes_per_rank > 0)
    j["activation_offload"] = {{"bytes_per_rank", r.offload_bytes_per_rank}, {"exposed_s", r.offload_exposed_s}};
  j["memory_peak_bytes"] = r.memory_peak.value();
  j["hbm_capacity_bytes"] = r.hbm_capacity.value();
  j["oom"] = r.oom;
  if (const auto& c = r.compute) {
    // The scenario's `compute:` keys, in their YAML units (times in us).
    j["compute"] = nlohmann::ordered_json{{"matmul_tflops", c->matmul.value() / 1e12},
                                          {"mamf_shape", {c->mamf_shape.m, c->mamf_shape.n, c->mamf_shape.k}},
                                          {"sm_count", c->sm_count},
                                          {"gemm_tile_k_bytes", c->gemm_tile_k_bytes},
                                          {"gemm_tile_latency_us", c->gemm_tile_latency.seconds() * 1e6},
                                          {"gemm_feed_ratio", c->gemm_feed_ratio},
                                          {"gemm_epilogue_overlap", c->epilogue_overlap},
                                          {"sustained_factor", c->sustained_factor},
                                          {"fp8_gemm_factor", c->fp8_gemm_factor},
                                          {"grouped_gemm_efficiency", c->grouped_gemm_efficiency},
                                          {"moe_load_imbalance", c->moe_load_imbalance},
                                          {"attention_efficiency", c->attention_efficiency},
                                          {"softmax_exp_rate_per_s", c->softmax_exp_rate.value()},
                                          {"softmax_exp_cost", c->softmax_exp_cost},
                                          {"hbm_efficiency", c->hbm_efficiency},
                                          {"launch_overhead_us", c->launch_overhead.seconds() * 1e6},
                                          {"expert_launch_overhead_us", c->expert_launch_overhead.seconds() * 1e6},
                                          {"comm_slowdown", c->comm_slowdown}};
    // Only where the topology sets a power limit below the TDP (README "Power limit").
    if (c->power_clock_factor != 1.0) j["compute"]["power_clock_factor"] = c->power_clock_factor;
    // The profile's FlashAttention-2 rate, where it has one (attention_efficiency above is the one this run used).
    if (c->flash2_attention_efficiency) j["compute"]["flash2_attention_efficiency"] = *c->flash2_attention_efficiency;
    if (c->alibi_attention_efficiency) j["compute"]["alibi_attention_efficiency"] = *c->alibi_attention_efficiency;
  }
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const auto& s : r.stages)
    stages.push_back({{"stage", s.stage},
                      {"rank", s.rank},
                      {"bubble_fraction", s.bubble_fraction},
                      {"bubble_overhead", s.bubble_overhead},
                      {"compute_busy_s", s.compute_busy.seconds()},
                      {"flush_window_s", s.flush_window.seconds()},
                      {"peak_in_flight", s.peak_in_flight},
                      {"peak_awaiting_b", s.peak_awaiting_b},
                      {"activation_peak",
                       {{"awaiting_b", s.activation_peak.awaiting_b}, {"awaiting_w", s.activation_peak.awaiting_w}}},
                      {"memory", memory_json(s.memory)},
                      {"oom", s.oom},
                      {"time_breakdown_s", time_breakdown_json(s.time)}});
  j["stages"] = stages;
  // `ranks`: every rank of the world, one line each (16,384 lines at 16K GPUs). A TP-folded rank
  // shares its executed sibling's figures and says so with `executed_as` instead of repeating them.
  std::string out = j.dump(2);
  out.pop_back();  // the closing brace
  // `gpu_ids` on one line (a number per rank).
  out += ",\n  \"gpu_ids\": [";
  for (size_t g = 0; g < static_cast<size_t>(r.world); ++g)
    fmt::format_to(std::back_inserter(out), "{}{}", g ? ", " : "", g < r.gpu_ids.size() ? r.gpu_ids[g] : g);
  out += "]";
  out += ",\n  \"ranks\": [";
  std::vector<uint32_t> alias = r.executed_as;  // a Report built by hand may only list executed ranks
  if (alias.empty())
    for (const auto& rr : r.ranks) {
      alias.resize(std::max<size_t>(alias.size(), rr.rank + 1), rr.rank);
      alias[rr.rank] = rr.rank;
    }
  std::vector<const RankReport*> by_rank(alias.size(), nullptr);
  for (const auto& rr : r.ranks) by_rank[rr.rank] = &rr;
  bool first = true;
  for (size_t w = 0; w < alias.size(); ++w) {
    if (by_rank[alias[w]] == nullptr) continue;
    const RankReport& src = *by_rank[alias[w]];
    nlohmann::ordered_json e{{"rank", w}, {"stage", src.stage}, {"executed_as", alias[w]}};
    if (alias[w] == w) {
      nlohmann::ordered_json rank_exposed;
      for (Dim d : kDims) rank_exposed[to_string(d)] = src.exposed[static_cast<size_t>(d)].seconds();
      e["compute_busy_s"] = src.compute_busy.seconds();
      e["comm_total_s"] = src.comm_total.seconds();
      e["comm_hidden_s"] = src.comm_hidden.seconds();
      e["overlap_fraction"] = src.overlap_fraction();
      e["exposed_comm_s"] = rank_exposed;
    }
    out += (first ? "\n    " : ",\n    ") + e.dump();
    first = false;
  }
  out += first ? "]" : "\n  ]";
  out += ",\n  \"notes\": " + nlohmann::json(r.notes).dump();
  nlohmann::ordered_json profiles = nlohmann::ordered_json::array();
  for (const auto& l : r.calibration.layers)
    profiles.push_back({{"origin", l.origin}, {"file", l.file}, {"name", l.name}, {"source", l.source}});
  out += ",\n  \"calibration\": " +
         nlohmann::ordered_json{{"profiles", profiles},
                                {"collectives_from", r.calibration.collectives ? r.calibration.collectives_from
                                                                               : std::string("defaults")}}
             .dump();
  out += ",\n  \"symmetry\": " + nlohmann::ordered_json{{"tp_folding", r.symmetry.tp_folding},
                                                       {"executed_ranks", r.symmetry.executed_ranks},
                                                       {"tp_memo", r.symmetry.tp_memo},
                                                       {"tp_planes", r.symmetry.tp_planes},
                                                       {"dp_folding", r.symmetry.dp_folding},
                                                       {"dp_abandoned", r.symmetry.dp_abandoned}}
                                      .dump();
  out += pipeline_json(r);
  // `ops` can hold millions of entries (every op of every simulated rank): one line each, written
  // directly rather than as a JSON tree (about 5x less time and 10x less memory at 1024 GPUs).
  out += ",\n  \"ops\": [";
  std::vector<std::string> quoted;  // per label: `"name": ..., "class": ...`, escaped once
  for (const OpLabel& l : r.op_labels)
    quoted.push_back(fmt::format("\"name\": {}, \"class\": {}", nlohmann::json(l.name).dump(), nlohmann::json(l.cls).dump()));
  size_t longest = 0;
  for (const std::string& q : quoted) longest = std::max(longest, q.size());
  // An upper bound per line (pages never written are never resident): 47 characters of keys and
  // punctuation, a rank of at most 10 digits, two shortest-form doubles of at most 24 each.
  out.reserve(out.size() + r.ops.size() * (longest + 47 + 10 + 2 * 24));
  auto it = std::back_inserter(out);
  for (size_t i = 0; i < r.ops.size(); ++i) {
    const OpRecord& o = r.ops[i];
    // A compiled format: parsed once at build time, not once per op.
    fmt::format_to(it, FMT_COMPILE("{}\n    {{{}, \"rank\": {}, \"start_s\": {}, \"duration_s\": {}}}"),
                   i == 0 ? "" : ",", quoted[o.label], o.rank, o.start_s, o.duration_s);
  }
  out += r.ops.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

std::string gpu_ranges(const Report& r) {
  auto id = [&](size_t g) -> size_t { return g < r.gpu_ids.size() ? r.gpu_ids[g] : g; };
  std::string out;
  for (size_t g = 0; g < static_cast<size_t>(r.world);) {
    size_t end = g + 1;
    while (end < static_cast<size_t>(r.world) && id(end) == id(end - 1) + 1) ++end;
    out += (out.empty() ? "" : ",") + (end - g > 1 ? fmt::format("{}-{}", id(g), id(end - 1)) : fmt::format("{}", id(g)));
    g = end;
  }
  return out;
}

std::string report_text(const Report& r) {
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };
  line(fmt::format("{} on {} x {}", r.name, r.world, r.gpu));
  bool in_order = r.topology_gpus <= static_cast<size_t>(r.world);
  for (size_t g = 0; in_order && g < r.gpu_ids.size(); ++g) in_order = r.gpu_ids[g] == g;
  if (!in_order)  // a subset of the topology, or its GPUs in another order: say which ran
    line(fmt::format("  GPUs                {} of the topology's {} (rank r on the r-th)", gpu_ranges(r), r.topology_gpus));
  line(fmt::format("  iteration time      {:.4f} s  ({} micro-batches per pipeline)", r.iteration.seconds(), r.micro_batches));
  line(fmt::format("  throughput          {:.4g} tokens/s", r.tokens_per_s));
  line(fmt::format("  model TFLOP/s/GPU   {:.1f} TFLOP/s  (MFU {:.1f} %)", r.tflops_per_gpu, 100 * r.mfu));
  line(fmt::format("  hw TFLOP/s/GPU      {:.1f} TFLOP/s  (HFU {:.1f} %, recompute included)", r.hw_tflops_per_gpu, 100 * r.hfu));
  line(fmt::format("  pipeline bubble     {:.2f} % of the iteration, overhead {:.2f} % of compute (mean over stages)",
                   100 * r.bubble_fraction, 100 * r.bubble_overhead));
  line(fmt::format("  comm overlap        {:.1f} % of communication hidden under compute", 100 * r.overlap_fraction));
  std::string exp;
  for (Dim d : kDims) exp += fmt::format(" {} {:.4f} s", to_string(d), r.exposed_comm_s[static_cast<size_t>(d)]);
  line("  exposed comm       " + exp + "  (mean per rank)");
  if (r.offload_bytes_per_rank > 0)
    line(fmt::format("  activation offload  {:.2f} GB per rank to host memory and back, in flight with no compute "
                     "running {:.4f} s (mean per rank)", r.offload_bytes_per_rank / 1e9, r.offload_exposed_s));
  line(fmt::format("  memory peak         {:.2f} GB of {:.2f} GB HBM{}", r.memory_peak.value() / 1e9,
                   r.hbm_capacity.value() / 1e9, r.oom ? "  ** OUT OF MEMORY **" : ""));
  for (const auto& s : r.stages) {
    const auto& m = s.memory;
    // With B/W split, the peak may hold some chunks with only their weight-gradient share.
    const HeldChunks& at = s.activation_peak;
    const std::string held = at.awaiting_w > 0
                                 ? fmt::format("{} full + {} awaiting W at the peak", at.awaiting_b, at.awaiting_w)
                                 : fmt::format("{} in flight", s.peak_in_flight);
    line(fmt::format("    stage {:>3}: bubble {:6.2f} %  weights {:.2f} GB, grads {:.2f} GB, optimizer {:.2f} GB, "
                     "activations {:.2f} GB ({}), temporary {:.2f} GB = {:.2f} GB{}",
                     s.stage, 100 * s.bubble_fraction, m.weights.value() / 1e9, m.gradients.value() / 1e9,
                     m.optimizer.value() / 1e9, m.activations.value() / 1e9, held, m.temporary.value() / 1e9,
                     m.total().value() / 1e9, s.oom ? "  OOM" : ""));
  }
  if (r.calibration.layers.empty()) line("  calibration         none (built-in defaults, README \"Definitions\")");
  for (const auto& l : r.calibration.layers)
    line(fmt::format("  calibration         {} profile '{}' ({}): {}", l.origin, l.name, l.file, l.source));
  if (!r.notes.empty()) line("  note: " + r.notes);
  return out;
}

}  // namespace plansim
