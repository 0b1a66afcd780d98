#pragma once
// Choosing what runs: a named algorithm/protocol, or `auto` = every applicable algorithm x enabled
// protocol ranked with nccl_model.hpp's predict_time() in NCCL's tuner view (its latency table: the
// per-step latency once per step, no device latency; tuning.cc), fastest kept, as NCCL's tuner does
// with its latency/bandwidth table. `predicted` is then the choice's full cost. Bad names and
// inapplicable choices are ConfigErrors.
#include "sim/coll/algorithm.hpp"
#include "sim/coll/nccl_model.hpp"

namespace plansim {

struct CollectiveChoice {
  const CollectiveAlgorithm* algorithm = nullptr;
  Protocol protocol = Protocol::simple;
  FlowPlan plan;
  Time predicted;  // predict_time() of the choice (the network alone)
  HwKind intra = HwKind::nvlink;
};

CollectiveChoice choose_collective(const AlgorithmRegistry& reg, const NcclModelParams& m, const Topology& topo,
                                   const CollectiveCall& call);

}  // namespace plansim
