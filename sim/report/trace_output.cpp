// The Perfetto/Chrome trace of a simulated run: "X" (complete) events, one process per rank and one
// thread per stream, written line by line (no JSON tree: a 16k-GPU plan has millions of ops).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "sim/core/error.hpp"
#include "sim/report/report.hpp"

namespace plansim {
namespace {
constexpr size_t kMostExecutedByDefault = 256;

std::vector<uint32_t> executed_ranks(const CompiledPlan& plan) {
  std::vector<uint32_t> out;
  for (const Program& p : plan.programs) out.push_back(p.rank);
  return out;
}

std::vector<uint32_t> first_of_each_stage(const CompiledPlan& plan) {
  std::vector<uint32_t> out;
  std::vector<bool> seen(static_cast<size_t>(plan.stages), false);
  for (const Program& p : plan.programs)
    if (!seen[static_cast<size_t>(p.stage)]) {
      seen[static_cast<size_t>(p.stage)] = true;
      out.push_back(p.rank);
    }
  return out;
}
}  // namespace

std::vector<uint32_t> listed_trace_ranks(const std::string& spec, int world) {
  std::vector<uint32_t> out;
  if (spec.empty() || spec == "executed" || spec == "stages") return out;
  if (spec == "all") {
    for (int r = 0; r < world; ++r) out.push_back(static_cast<uint32_t>(r));
    return out;
  }
  size_t at = 0;
  while (at <= spec.size()) {
    const size_t end = std::min(spec.find(',', at), spec.size());
    const std::string item = spec.substr(at, end - at);
    uint32_t r = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), r);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size() || r >= static_cast<uint32_t>(world))
      throw ConfigError(SourcePos{"--trace-ranks", 0, 0},
                        fmt::format("'{}' is not a rank of this plan (0 to {}), nor all, executed or stages", item,
                                    world - 1));
    out.push_back(r);
    at = end + 1;
  }
  return out;
}

std::vector<uint32_t> trace_ranks(const CompiledPlan& plan, const std::string& spec) {
  if (spec.empty())
    return plan.programs.size() <= kMostExecutedByDefault ? executed_ranks(plan) : first_of_each_stage(plan);
  if (spec == "executed") return executed_ranks(plan);
  if (spec == "stages") return first_of_each_stage(plan);
  return listed_trace_ranks(spec, plan.world);
}

std::string trace_json(const CompiledPlan& plan, const ExecutionResult& exec, const Report& r,
                       const std::vector<uint32_t>& world_ranks) {
  std::string out = "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [";
  bool first = true;
  auto add = [&](const std::string& event) {
    out += first ? "\n" : ",\n";
    out += event;
    first = false;
  };
  for (uint32_t w : world_ranks) {
    const uint32_t as = r.executed_as.empty() ? w : r.executed_as[w];
    const int32_t k = plan.program_of_rank[as];
    const Program& p = plan.programs[static_cast<size_t>(k)];
    const std::string label = as == w ? fmt::format("rank {} (stage {})", w, p.stage)
                                      : fmt::format("rank {} (stage {}, as rank {}: TP folded)", w, p.stage, as);
    add(fmt::format(R"({{"name": "process_name", "ph": "M", "pid": {}, "args": {{"name": "{}"}}}})", w, label));
    for (int s = 0; s < kStreamCount; ++s)
      add(fmt::format(R"({{"name": "thread_name", "ph": "M", "pid": {}, "tid": {}, "args": {{"name": "{}"}}}})", w, s,
                      to_string(static_cast<StreamKind>(s))));
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const ProgramOp& op = p.ops[i];
      const OpTiming& t = exec.timings[static_cast<size_t>(k)][i];
      add(fmt::format(R"({{"name": "{}", "ph": "X", "pid": {}, "tid": {}, "ts": {}, "dur": {}, )"
                      R"("args": {{"phase": "{}", "micro_batch": {}, "bytes": {}}}}})",
                      op_name(plan, op), w, static_cast<int>(op.stream), t.start.micros(), (t.end - t.start).micros(),
                      to_string(op.phase), op.micro_batch, op.bytes));
    }
  }
  out += "\n]}\n";
  return out;
}

}  // namespace plansim
