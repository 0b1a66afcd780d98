#include "sim/report/report.hpp"

#include <algorithm>

#include "sim/core/assert.hpp"
#include "sim/model/transformer.hpp"
#include "sim/plan/finetune.hpp"
#include "sim/report/intervals.hpp"
#include "sim/sched/registry.hpp"

namespace plansim {

double RankReport::overlap_fraction() const {
  return comm_total > Time::zero() ? comm_hidden / comm_total : 1.0;
}

namespace {

Dim dim_of(const CompiledPlan& plan, const ProgramOp& op) {
  return op.kind == OpKind::collective ? plan.groups[op.group].dim : Dim::pp;
}

RankReport rank_report(const CompiledPlan& plan, const ExecutionResult& exec, size_t index) {
  const Program& p = plan.programs[index];
  RankReport rr;
  rr.rank = p.rank;
  rr.stage = p.stage;
  const auto& t = exec.timings[index];
  std::vector<Interval> compute, comm, copies;
  std::array<std::vector<Interval>, 5> by_dim;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    const ProgramOp& op = p.ops[i];
    const Interval iv{t[i].start, t[i].end};
    if (op.kind == OpKind::host_copy) {
      copies.push_back(iv);
      rr.host_copy_bytes += op.bytes;
    } else if (op.kind == OpKind::compute) {
      compute.push_back(iv);
    } else {
      comm.push_back(iv);
      by_dim[static_cast<size_t>(dim_of(plan, op))].push_back(iv);
    }
  }
  compute = merge_intervals(std::move(compute));
  comm = merge_intervals(std::move(comm));
  rr.compute_busy = total_length(compute);
  rr.comm_total = total_length(comm);
  rr.comm_hidden = overlap_length(comm, compute);
  for (size_t d = 0; d < 5; ++d) {
    auto merged = merge_intervals(std::move(by_dim[d]));
    rr.exposed[d] = total_length(merged) - overlap_length(merged, compute);
  }
  copies = merge_intervals(std::move(copies));
  rr.host_copy_exposed = total_length(copies) - overlap_length(copies, compute);
  return rr;
}

// End of the pipeline flush: the last forward/backward compute op of any rank.
Time flush_end(const CompiledPlan& plan, const ExecutionResult& exec) {
  Time end;
  for (size_t k = 0; k < plan.programs.size(); ++k)
    for (size_t i = 0; i < plan.programs[k].ops.size(); ++i)
      if (plan.programs[k].ops[i].kind == OpKind::compute && plan.programs[k].ops[i].micro_batch >= 0)
        end = std::max(end, exec.timings[k][i].end);
  return end;
}

StageReport stage_report(const Scenario& s, const CompiledPlan& plan, const ExecutionResult& exec, size_t index,
                         Time iteration, Time window) {
  const Program& p = plan.programs[index];
  StageReport st;
  st.stage = p.stage;
  st.rank = p.rank;
  const auto& t = exec.timings[index];
  // Busy: forward/backward compute in the window. Idle time while one of this rank's transfers is in
  // flight is exposed communication, reported as such, not bubble.
  std::vector<Interval> compute, covered;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (t[i].start >= window) continue;
    const Interval iv{t[i].start, std::min(t[i].end, window)};
    if (p.ops[i].kind != OpKind::compute) covered.push_back(iv);
    else if (p.ops[i].micro_batch >= 0) compute.push_back(iv);
  }
  covered.insert(covered.end(), compute.begin(), compute.end());
  const Time busy = total_length(merge_intervals(std::move(compute)));
  st.flush_window = window;
  st.compute_busy = busy;
  const Time idle = window - total_length(merge_intervals(std::move(covered)));
  st.bubble_fraction = idle / iteration;
  st.bubble_overhead = busy > Time::zero() ? idle / busy : 0;
  const StageHolding& held = plan.held[static_cast<size_t>(p.stage)];
  st.peak_in_flight = held.peak_chunks();
  st.peak_awaiting_b = held.peak_awaiting_b();
  st.activation_peak = activation_peak_state(s, held);
  st.memory = stage_memory(s, stage_memory_input(s, p.stage, held));
  return st;
}

}  // namespace

Report build_report(const Scenario& s, const CompiledPlan& plan, const ExecutionResult& exec, const GpuSpec& gpu,
                    bool with_ops) {
  Report r;
  r.name = s.name;
  r.calibration = s.calibration;
  r.gpu = gpu.model;
  r.world = plan.world;
  r.micro_batches = plan.micro_batches;
  r.iteration = exec.iteration;
  r.events = exec.events;
  r.comm_calls = exec.comm_calls;
  const double T = exec.iteration.seconds();
  r.tokens_per_s = s.tokens_per_iteration() / T;
  // Fine-tuning: the work the plan must do (no frozen weight gradients, adapters), plan/finetune.hpp.
  r.model_flops = s.training.finetune.is_full() ? model_flops_per_iteration(s.model, s.training.global_batch)
                                                : finetune_model_flops(s);
  for (const auto& p : plan.programs)
    for (const auto& op : p.ops)
      if (op.kind == OpKind::compute && op.micro_batch >= 0) r.hardware_flops += plan.costs[op.cost].flops * plan.fold;
  const double peak = gpu.peak(s.model.dtype).value();
  r.tflops_per_gpu = r.model_flops / (T * r.world) / 1e12;
  r.hw_tflops_per_gpu = r.hardware_flops / (T * r.world) / 1e12;
  r.mfu = r.model_flops / (T * r.world * peak);
  r.hfu = r.hardware_flops / (T * r.world * peak);
  Time comm_total, comm_hidden;
  for (size_t k = 0; k < plan.programs.size(); ++k) {
    RankReport rr = rank_report(plan, exec, k);
    comm_total += rr.comm_total;
    comm_hidden += rr.comm_hidden;
    r.ranks.push_back(rr);
  }
  r.overlap_fraction = comm_total > Time::zero() ? comm_hidden / comm_total : 1.0;
  // Folded rank r runs the program of r − j·fold_stride for the j (0 < j < fold) that has one.
  r.executed_as.resize(static_cast<size_t>(plan.world));
  for (int w = 0; w < plan.world; ++w) {
    int e = w;
    for (int j = 1; j < plan.fold && plan.program_of_rank[static_cast<size_t>(e)] < 0 && w - j * plan.fold_stride >= 0; ++j)
      e = w - j * plan.fold_stride;
    PLANSIM_ASSERT(plan.program_of_rank[static_cast<size_t>(e)] >= 0, "a folded rank without an executed sibling");
    r.executed_as[static_cast<size_t>(w)] = static_cast<uint32_t>(e);
  }
  // Mean exposed communication over the world: every rank's own figure (a folded rank's is its
  // executed rank's), summed exactly in picoseconds and divided once, so that a folded run's mean is
  // the unfolded run's to the last bit (README "Shortcuts": reports are byte-identical).
  std::array<Time, 5> exposed{};
  Time copy_exposed;
  double copy_bytes = 0;
  for (int w = 0; w < plan.world; ++w) {
    const RankReport& rr = r.ranks[static_cast<size_t>(plan.program_of_rank[r.executed_as[static_cast<size_t>(w)]])];
    for (size_t d = 0; d < 5; ++d) exposed[d] += rr.exposed[d];
    copy_exposed += rr.host_copy_exposed;
    copy_bytes += rr.host_copy_bytes;
  }
  for (size_t d = 0; d < 5; ++d) r.exposed_comm_s[d] = exposed[d].seconds() / plan.world;
  r.offload_exposed_s = copy_exposed.seconds() / plan.world;
  r.offload_bytes_per_rank = copy_bytes / plan.world;
  std::vector<bool> seen(static_cast<size_t>(plan.stages), false);
  r.hbm_capacity = gpu.hbm_capacity;
  const Time window = flush_end(plan, exec);
  for (size_t k = 0; k < plan.programs.size(); ++k) {
    const Program& p = plan.programs[k];
    if (seen[static_cast<size_t>(p.stage)]) continue;
    seen[static_cast<size_t>(p.stage)] = true;
    StageReport st = stage_report(s, plan, exec, k, exec.iteration, window);
    st.time = stage_time_breakdown(plan, exec, k, exec.iteration, window);
    const auto slots = schedule_slots(plan, exec, k);
    r.slots.insert(r.slots.end(), slots.begin(), slots.end());
    st.oom = st.memory.total() > gpu.hbm_capacity;
    r.oom = r.oom || st.oom;
    r.memory_peak = std::max(r.memory_peak, st.memory.total());
    r.bubble_fraction += st.bubble_fraction / plan.stages;
    r.bubble_overhead += st.bubble_overhead / plan.stages;
    r.stages.push_back(st);
  }
  std::sort(r.stages.begin(), r.stages.end(), [](const StageReport& a, const StageReport& b) { return a.stage < b.stage; });
  std::stable_sort(r.slots.begin(), r.slots.end(), [](const ScheduleSlot& a, const ScheduleSlot& b) { return a.stage < b.stage; });
  r.schedule = s.schedule.kind;
  r.chunks = schedule_layout(s.schedule.kind, {plan.stages, plan.micro_batches, s.schedule.virtual_stages}).chunks();
  if (with_ops) {
    OpRecords records = op_records(plan, exec);
    r.op_labels = std::move(records.labels);
    r.ops = std::move(records.ops);
  }
  return r;
}

}  // namespace plansim
