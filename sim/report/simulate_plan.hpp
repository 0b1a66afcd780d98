#pragma once
// Scenario + topology -> compiled plan, simulated execution and report: the whole `plansim run`
// pipeline as a library call (compute model with the scenario's calibration; every transfer through
// the collective runner on one shared flow network).
#include "sim/plan/executor.hpp"
#include "sim/plan/program.hpp"
#include "sim/report/report.hpp"
#include "sim/topo/topology.hpp"

namespace plansim {

struct PlanRun {
  CompiledPlan plan;
  ExecutionResult exec;
  Report report;
  double wall_seconds = 0;  // host time spent compiling and simulating
};

struct SimulateOptions {
  // Use the exact shortcuts of plan/symmetry.hpp: TP folding, kept only if the siblings stayed in
  // lockstep (else the plan is run again with every rank), and TP memoisation when TP links are
  // private. The report's notes say which were used.
  bool symmetry = true;
  // Fill Report::ops (the per-op records only the JSON writes; see build_report).
  bool op_records = true;
  // With `symmetry`: try DP folding first (step 0 of simulate_plan.cpp's policy); off, the TP
  // shortcuts alone (tests of those).
  bool fold_dp = true;
};

PlanRun simulate_plan(const Scenario& s, const Topology& topo, const SimulateOptions& options = {});

}  // namespace plansim
