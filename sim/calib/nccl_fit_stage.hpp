#pragma once
// One stage of `plansim calibrate --topology` (nccl_fit.hpp): the NCCL model fitted to a set of measured
// collectives whose groups are all of one kind (all inside one server, or all spanning servers), with
// the residuals and the leave-one-out folds of that set. nccl_fit.cpp composes stages.
#include <map>
#include <string>
#include <vector>

#include "sim/calib/nccl_fit.hpp"
#include "sim/coll/collective_runner.hpp"

namespace plansim::calib::nccl_stage {

struct Case {
  const CollectiveSample* s;
  CollOp op;
  std::string algo;
  bool floored = true;  // timed by the loop the fit's launch floor is for (NcclModelParams::launch_overhead_harness)
  bool torch = false;   // timed by a torch.distributed loop: pays its per-call host cost (torch_loop_overhead_us)
};

struct Options {
  bool leave_one_out = true;  // also fit without each fold (by file when several, else by sample)
  bool hold_launch = false;   // keep start's launch floor (a network stage after a server stage)
};

// The leave-one-out folds (case indices): by input file when there are several, else one per case; `by`
// is set to "file" or "sample".
std::map<std::string, std::vector<size_t>> leave_one_out_folds(const std::vector<Case>& cases, std::string& by);

// Fits `cases` (non-empty, validated). NcclFit::residuals follow `cases`' order.
NcclFit fit_cases(const std::vector<Case>& cases, const Topology& topo, const NcclModelParams& start, Options o);

}  // namespace plansim::calib::nccl_stage
