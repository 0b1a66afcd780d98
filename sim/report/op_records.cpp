// Per-op records of a report (the `ops` array that `plansim validate` compares).
#include <fmt/format.h>

#include "sim/report/report.hpp"

namespace plansim {

std::string op_name(const CompiledPlan& plan, const ProgramOp& op) {
  switch (op.kind) {
    case OpKind::compute: return plan.costs[op.cost].name + (op.recompute ? " (recompute)" : "");
    case OpKind::collective: return fmt::format("{}_{}", to_string(plan.groups[op.group].dim), to_string(op.comm));
    case OpKind::send: return "send";
    case OpKind::recv: return "recv";
    case OpKind::host_copy: return plan.costs[op.cost].name;
  }
  return "?";
}

std::string op_class(const CompiledPlan& plan, const ProgramOp& op) {
  if (op.kind == OpKind::collective) return "collective";
  if (op.kind == OpKind::host_copy) return to_string(OpClass::host_copy);
  if (op.kind != OpKind::compute) return "p2p";
  const OpCost* top = nullptr;
  for (const OpCost& k : plan.costs[op.cost].kernels)
    if (k.flops > 0 && (top == nullptr || k.flops > top->flops)) top = &k;
  return top == nullptr ? "elementwise" : to_string(top->cls);
}

namespace {
// Which label an op gets: compute ops by (cost, recompute), collectives by (group's dim, op).
size_t label_key(const CompiledPlan& plan, const ProgramOp& op) {
  constexpr size_t kComms = static_cast<size_t>(CommOp::send_recv) + 1, kDims = static_cast<size_t>(Dim::pp) + 1;
  switch (op.kind) {
    case OpKind::send: return 0;
    case OpKind::recv: return 1;
    case OpKind::collective:
      return 2 + static_cast<size_t>(plan.groups[op.group].dim) * kComms + static_cast<size_t>(op.comm);
    case OpKind::compute:  // host copies have cost entries of their own: the same numbering
    case OpKind::host_copy: return 2 + kDims * kComms + 2 * size_t{op.cost} + (op.recompute ? 1 : 0);
  }
  return 0;
}
}  // namespace

OpRecords op_records(const CompiledPlan& plan, const ExecutionResult& exec) {
  OpRecords out;
  std::vector<uint32_t> label_of;  // by label_key, kUnset until first use
  constexpr uint32_t kUnset = ~0U;
  size_t total = 0;
  for (const Program& p : plan.programs) total += p.ops.size();
  out.ops.reserve(total);
  for (size_t k = 0; k < plan.programs.size(); ++k) {
    const Program& p = plan.programs[k];
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const ProgramOp& op = p.ops[i];
      const size_t key = label_key(plan, op);
      if (key >= label_of.size()) label_of.resize(key + 1, kUnset);
      if (label_of[key] == kUnset) {
        label_of[key] = static_cast<uint32_t>(out.labels.size());
        out.labels.push_back({op_name(plan, op), op_class(plan, op)});
      }
      const OpTiming& t = exec.timings[k][i];
      out.ops.push_back({label_of[key], p.rank, t.start.seconds(), (t.end - t.start).seconds()});
    }
  }
  return out;
}

}  // namespace plansim
