#include "sim/coll/selection.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace plansim {
namespace {

void check_call(const Topology& topo, const CollectiveCall& call) {
  const SourcePos pos{"collective", 0, 0};
  if (call.ranks.empty()) throw ConfigError(pos, "a collective needs at least one rank");
  for (GpuId g : call.ranks)
    if (g.index() >= topo.num_gpus())
      throw ConfigError(pos, fmt::format("GPU {} is not in topology '{}' ({} GPUs)", g.value, topo.name(), topo.num_gpus()));
  if (call.op == CollOp::send_recv && call.ranks.size() != 2)
    throw ConfigError(pos, "send_recv needs exactly two ranks {src, dst}");
  if (call.root < 0 || static_cast<size_t>(call.root) >= call.ranks.size())
    throw ConfigError(pos, fmt::format("root {} is not a rank of the group (0..{})", call.root, call.ranks.size() - 1));
  if (call.bytes.value() < 0) throw ConfigError(pos, "a collective cannot move a negative number of bytes");
}

}  // namespace

CollectiveChoice choose_collective(const AlgorithmRegistry& reg, const NcclModelParams& m, const Topology& topo,
                                   const CollectiveCall& call) {
  check_call(topo, call);
  const SourcePos pos{"collective", 0, 0};
  std::vector<const CollectiveAlgorithm*> algos;
  if (call.algorithm == "auto") {
    for (const auto& a : reg.all())
      if (a->in_auto(call.op) && a->applicable(call.op, topo, call.ranks)) algos.push_back(a.get());
    if (algos.empty()) throw ConfigError(pos, fmt::format("no algorithm can run {} on this group", to_string(call.op)));
  } else {
    const CollectiveAlgorithm* a = reg.find(call.algorithm);
    if (!a)
      throw ConfigError(pos, fmt::format("unknown algorithm '{}' (known: auto, {})", call.algorithm,
                                         fmt::join(reg.names(), ", ")));
    if (!a->applicable(call.op, topo, call.ranks)) {
      const std::string_view need = a->supports(call.op) ? a->requirement() : "";
      throw ConfigError(pos, fmt::format("algorithm '{}' cannot run {} on this group of {} GPUs{}{}", call.algorithm,
                                         to_string(call.op), call.ranks.size(), need.empty() ? "" : ": it needs ",
                                         need));
    }
    algos.push_back(a);
  }
  const HwKind intra = intra_hw_kind(topo, call.ranks);
  std::vector<Protocol> protos;
  if (call.protocol == "auto") {
    for (Protocol p : {Protocol::ll, Protocol::ll128, Protocol::simple})
      if (protocol_on_by_default(p, intra)) protos.push_back(p);
  } else {
    auto p = protocol_from_string(call.protocol);
    if (!p) throw ConfigError(pos, fmt::format("unknown protocol '{}' (known: auto, LL, LL128, Simple)", call.protocol));
    protos = {*p};
  }
  LoweringContext ctx{&topo, call.op, call.ranks, call.bytes, call.root, std::max(1, m.channels)};
  // NCCL's tuner ranks the candidates with its own table (tuning.cc: per-step latency once per step,
  // no per-call calibration terms), not with what the kernel then costs: rank with that view, so the
  // choice switches where NCCL's does (e.g. LL128 -> Simple earlier than the calibrated costs would).
  NcclModelParams tuner = m;
  tuner.simple_slices_per_chunk = 0;
  tuner.device_latency_us = 0;
  CollectiveChoice best;
  Time best_rank;
  bool found = false;
  for (const CollectiveAlgorithm* a : algos) {
    if (found && algos.size() > 1 && a->time_lower_bound(ctx, tuner) >= best_rank) continue;
    FlowPlan plan = a->lower(ctx);
    for (Protocol p : protos) {
      if (!m.protocol_enabled(a->latency_class(), p)) continue;
      const Time t = predict_time(tuner, a->latency_class(), p, plan, topo, intra);
      if (!found || t < best_rank) {
        best.algorithm = a;
        best.protocol = p;
        best_rank = t;
        found = true;
      }
    }
    if (found && best.algorithm == a) best.plan = std::move(plan);
  }
  if (found) best.predicted = predict_time(m, best.algorithm->latency_class(), best.protocol, best.plan, topo, intra);
  if (!found)
    throw ConfigError(pos, fmt::format("protocol {} is not available for the chosen algorithm", call.protocol));
  best.intra = intra;
  return best;
}

}  // namespace plansim
