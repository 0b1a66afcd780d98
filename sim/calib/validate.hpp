#pragma once
// `plansim validate`: compares a simulated report with a measured one (same report schema: top-level
// iteration_time_s and per-op timings under `ops`). Ops are matched by (name, rank) and, for repeated
// names, by order of appearance. Relative error = (sim − measured) / measured.
// A simulated report folded by exact symmetry (TP planes, DP replicas) lists the ops of its executed ranks
// only; its `ranks[].executed_as` says which executed rank stands for each rank. A measured op on rank r
// is then compared with the op of executed_as(r) — the same timing, by the symmetry the report proved.
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"

namespace plansim::calib {

struct OpTiming {
  std::string name;
  std::string op_class;  // gemm | attention | elementwise | collective | p2p
  int rank = 0;
  double duration_s = 0;
  SourcePos pos;
};

struct ReportTimings {
  std::string source;
  double iteration_time_s = 0;
  SourcePos iteration_pos;
  std::vector<OpTiming> ops;
  std::map<int, int> executed_as;  // rank -> the executed rank whose ops stand for it (folded reports only)
};

const std::vector<std::string>& op_classes();

struct ClassError {
  int ops = 0;                 // matched ops
  double median_abs_rel = 0;   // median |rel err|
  double max_abs_rel = 0;      // max |rel err|
  double sim_total_s = 0;      // summed durations
  double measured_total_s = 0;
};

struct Validation {
  double end_to_end_rel = 0;  // (sim − measured) / measured iteration time (signed)
  std::map<std::string, ClassError> classes;  // only classes with matched ops, in name order
  int unmatched_sim = 0;       // sim ops with no measured counterpart
  int unmatched_measured = 0;  // measured ops with no sim counterpart
  double tolerance = 0;
  bool within_tolerance = true;  // |end-to-end| and every class median within the tolerance
};

// Throws ConfigError when a matched op has a different class in the two files, or a measured time is 0.
Validation validate(const ReportTimings& sim, const ReportTimings& measured, double tolerance);

// The printed table (stdout of `plansim validate`).
std::string format_validation(const Validation& v);

}  // namespace plansim::calib
