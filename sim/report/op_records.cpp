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
  }
  return "?";
}

std::string op_class(const CompiledPlan& plan, const ProgramOp& op) {
  if (op.kind == OpKind::collective) return "collective";
  if (op.kind != OpKind::compute) return "p2p";
  const OpCost* top = nullptr;
  for (const OpCost& k : plan.costs[op.cost].kernels)
    if (k.flops > 0 && (top == nullptr || k.flops > top->flops)) top = &k;
  return top == nullptr ? "elementwise" : to_string(top->cls);
}

std::vector<OpRecord> op_records(const CompiledPlan& plan, const ExecutionResult& exec) {
  std::vector<OpRecord> out;
  for (size_t k = 0; k < plan.programs.size(); ++k) {
    const Program& p = plan.programs[k];
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const OpTiming& t = exec.timings[k][i];
      out.push_back({op_name(plan, p.ops[i]), op_class(plan, p.ops[i]), p.rank, t.start.seconds(),
                     (t.end - t.start).seconds()});
    }
  }
  return out;
}

}  // namespace plansim
