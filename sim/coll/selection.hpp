#pragma once
// Choosing what runs: a named algorithm/protocol, or `auto` = every applicable algorithm x enabled
// protocol predicted with nccl_model.hpp's predict_time(), fastest kept (NCCL's tuner does the same
// with its latency/bandwidth table). Bad names and inapplicable choices are ConfigErrors.
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
