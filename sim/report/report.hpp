#pragma once
// The run report (README "Definitions"): iteration time, throughput, MFU/HFU, pipeline bubble per
// stage, compute/communication overlap and exposed communication per dimension, memory per stage.
//   bubble_fraction (per stage) = idle time of the stage's compute stream inside the pipeline flush
//     window [iteration start, end of the last F/B/W op of any stage] / iteration time, where idle
//     excludes time with one of the rank's own transfers in flight (that is exposed communication,
//     reported per dimension); measured on the stage's lowest rank;
//   bubble_overhead = that idle time / the stage's busy forward/backward compute time in the window;
//   overlap_fraction (per rank) = communication time hidden under compute / total communication
//     time (each a length of a union of intervals); the top level aggregates over all ranks;
//   exposed_comm_s[dim] = per-rank time with a `dim` transfer in flight and no compute, mean over ranks;
//   MFU = model FLOPs (no recompute) / (iteration time · GPUs · peak dense FLOP/s of the dtype);
//   HFU = the FLOPs actually executed (recompute included) / the same.
#include <array>
#include <string>
#include <vector>

#include "sim/model/memory.hpp"
#include "sim/plan/executor.hpp"
#include "sim/plan/program.hpp"
#include "sim/plan/scenario.hpp"
#include "sim/report/schedule_slots.hpp"
#include "sim/compute/compute_model.hpp"
#include "sim/topo/gpu_spec.hpp"

namespace plansim {

struct StageReport {
  int stage = 0;
  uint32_t rank = 0;  // the stage's representative rank (lowest)
  double bubble_fraction = 0;
  double bubble_overhead = 0;
  Time compute_busy;
  Time flush_window;
  MemoryBreakdown memory;
  // (micro-batch, chunk) pairs holding any activations at once: F start to the end of the backward
  // that computes the weight gradient (B, or W when the schedule splits backward).
  int peak_in_flight = 0;
  int peak_awaiting_b = 0;  // pairs holding their full activations at once: F start to B end
  // The state at the activation peak: pairs with full activations and pairs with only the
  // weight-gradient share (model/memory.hpp); activations = layers per chunk × its weighted sum.
  HeldChunks activation_peak;
  bool oom = false;
  StageTimeBreakdown time;  // the stage rank's iteration, part by part (schedule_slots.hpp)
};

struct RankReport {
  uint32_t rank = 0;
  int stage = 0;
  Time compute_busy;
  Time comm_total;
  Time comm_hidden;
  std::array<Time, 5> exposed{};  // by Dim
  Time host_copy_exposed;         // activation offload: a host copy in flight and no compute
  double host_copy_bytes = 0;     // over the host link, both directions
  [[nodiscard]] double overlap_fraction() const;
};

// One executed op, for `plansim validate` (README "plansim validate"): name = the compute cost's name
// (" (recompute)" appended for re-done forwards), "<dim>_<collective>" (e.g. "dp_all_reduce"), or
// "send"/"recv"; class = the class of the op's kernel with the most FLOPs (elementwise when none has
// FLOPs), "collective" or "p2p". Collectives' start is when every member was ready.
// Millions of ops share a few dozen (name, class) pairs: a record refers to its pair by index.
struct OpLabel {
  std::string name;
  std::string cls;
};
struct OpRecord {
  uint32_t label = 0;  // index into Report::op_labels
  uint32_t rank = 0;
  double start_s = 0;
  double duration_s = 0;
};
std::string op_name(const CompiledPlan& plan, const ProgramOp& op);
std::string op_class(const CompiledPlan& plan, const ProgramOp& op);
// Every op of every program, in rank order, then program order; labels in order of first use.
struct OpRecords {
  std::vector<OpLabel> labels;
  std::vector<OpLabel> op_labels;
  std::vector<OpRecord> ops;
};
OpRecords op_records(const CompiledPlan& plan, const ExecutionResult& exec);

struct Report {
  std::string name;
  std::string gpu;
  int world = 0;
  // The GPUs that ran (README "Any subset of a cluster"): rank r on GPU gpu_ids[r] of the whole
  // topology (its host-major numbers; empty: 0 .. world−1), out of topology_gpus (0: world).
  std::vector<uint32_t> gpu_ids;
  size_t topology_gpus = 0;
  int micro_batches = 0;
  Time iteration;
  double tokens_per_s = 0;
  double model_flops = 0;     // per iteration, all GPUs
  double hardware_flops = 0;  // including recompute
  double tflops_per_gpu = 0;  // model FLOPs
  double hw_tflops_per_gpu = 0;
  double mfu = 0;
  double hfu = 0;
  double bubble_fraction = 0;  // mean over stages
  double bubble_overhead = 0;  // mean over stages
  double overlap_fraction = 0;
  std::array<double, 5> exposed_comm_s{};  // by Dim, mean over ranks
  // Activation offload (training.activation_offload_layers): bytes each rank copies to and from host
  // memory per iteration (both directions), and the time a copy is in flight with no compute running
  // (as exposed_comm_s: the compute stream waits for it, or for something else meanwhile), both means
  // over ranks; 0 without offload.
  double offload_bytes_per_rank = 0;
  double offload_exposed_s = 0;
  Bytes memory_peak;
  Bytes hbm_capacity;
  bool oom = false;
  std::vector<StageReport> stages;
  std::vector<RankReport> ranks;  // executed ranks, in rank order
  // Per rank of the world: the executed rank whose program (and so whose figures) it shares: itself,
  // or with TP folding (CompiledPlan::fold) the TP-rank-0 sibling that ran for its TP group.
  std::vector<uint32_t> executed_as;
  uint64_t events = 0;
  uint64_t comm_calls = 0;
  std::string notes;  // e.g. what the run simplified
  ScenarioCalibration calibration;  // the profiles behind the compute and NCCL figures (README "Calibration profiles")
  // The exact shortcuts the run used (plan/symmetry.hpp), for tools; `notes` says the same in words.
  struct Symmetry {
    std::string tp_folding = "off";  // "exact": kept; "abandoned": siblings left lockstep; "off"
    size_t executed_ranks = 0;       // ranks whose programs ran (the world without folding)
    bool tp_memo = false;            // TP collectives timed once per distinct call
    // Folded transfers' copies: "isomorphic" (only TP rank 0's on the network, the others proven to
    // land with them), "shared" (every copy on the network), "off" (no folding).
    std::string tp_planes = "off";
    // DP folding (only DP replica 0's ranks executed, its transfers on one network plane, the DP
    // collectives projected onto it): "exact", "abandoned" (dp_abandoned says why), "off".
    std::string dp_folding = "off";
    std::string dp_abandoned;
  } symmetry;
  std::vector<OpLabel> op_labels;
  std::vector<OpRecord> ops;
  // The pipeline schedule as it ran (the JSON's `pipeline`, for the timeline picture): its name,
  // chunks per stage and every stage's schedule slots (schedule_slots.hpp), stage by stage.
  std::string schedule;
  int chunks = 1;
  std::vector<ScheduleSlot> slots;
  // The compute model's parameters the run used (defaults + the scenario's `compute:`), for the JSON.
  std::optional<ComputeParams> compute;
};

// `with_ops`: also fill op_labels/ops (one record per executed op, for the JSON's `ops`; 24 bytes each,
// millions at scale, so callers that write no JSON skip them).
Report build_report(const Scenario& s, const CompiledPlan& plan, const ExecutionResult& exec, const GpuSpec& gpu,
                    bool with_ops = true);
std::string report_text(const Report& r);
// "0-3,8-11": the GPUs that ran, consecutive numbers as ranges.
std::string gpu_ranges(const Report& r);
std::string report_json(const Report& r);
// Chrome/Perfetto trace events (trace_output.cpp): a process per listed world rank, a thread per
// stream. A TP-folded rank shows its executed sibling's ops (the same, folding being exact).
std::string trace_json(const CompiledPlan& plan, const ExecutionResult& exec, const Report& r,
                       const std::vector<uint32_t>& world_ranks);
// Which ranks `--trace-ranks` names: "all" (every world rank), "executed" (the executed ones),
// "stages" (the first executed rank of each stage) or a comma-separated list of world ranks; empty:
// "executed" up to 256 of them, else "stages" (a trace of thousands of ranks is too big to open).
// Throws ConfigError naming the bad entry.
std::vector<uint32_t> trace_ranks(const CompiledPlan& plan, const std::string& spec);
// The ranks a list names (empty for the keywords and ""), checked against `world`: the same errors,
// before a run.
std::vector<uint32_t> listed_trace_ranks(const std::string& spec, int world);

}  // namespace plansim
